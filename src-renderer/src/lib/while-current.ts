// For an effect that asks for something: the answer (or its failure) is handed on only while the
// effect is current, and the cleanup returned drops whatever comes after it.

export function whileCurrent<T>(asked: Promise<T>, onValue: (value: T) => void, onError: (err: unknown) => void = () => undefined): () => void {
  let current = true;
  void asked.then(
    (value) => current && onValue(value),
    (err: unknown) => current && onError(err),
  );
  return () => {
    current = false;
  };
}
