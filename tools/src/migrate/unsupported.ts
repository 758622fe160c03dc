/** What HyperDX cannot express: thrown with the reason, which the report gives as why the item was dropped. */
export class Unsupported extends Error {
  override name = 'Unsupported';
}
