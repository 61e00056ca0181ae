// Vite's `?url` imports: the URL of a file Vite copies into the build.
declare module '*?url' {
  const url: string;
  export default url;
}
