/** The word after `--name` on a bench script's command line, when the option is there. */
export function optionValue(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? argv[at + 1] : undefined;
}

/** `K=V,K2=V2` (an --a-env / --b-env value) as an environment. */
export const envList = (list: string | undefined): Record<string, string> =>
  Object.fromEntries(
    (list ?? '')
      .split(',')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
