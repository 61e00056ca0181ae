export function App(): React.JSX.Element {
  return (
    <main>
      <h1>Deepdesk</h1>
    </main>
  );
}
