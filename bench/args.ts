/** The word after `--name` on a bench script's command line, when the option is there. */
export function optionValue(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? argv[at + 1] : undefined;
}
