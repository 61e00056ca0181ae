export async function main(argv: string[]): Promise<number> {
  process.stderr.write(`deepdesk: unknown command ${argv[0] ?? ''}\n`);
  return 2;
}
