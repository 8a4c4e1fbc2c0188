/**
 * A function of a string that remembers its answers, for answers that never change and strings
 * that come back: the links of the same walks in answer after answer, the few `Accept-Encoding`
 * values clients send. At most `most` answers are kept; beyond, all are forgotten at once, so the
 * memory stays bounded whatever strings come. One home, beneath every folder that needs one.
 */
export function remembered<T extends object | string | number | boolean>(
  answer: (value: string) => T,
  most: number,
): (value: string) => T {
  const known = new Map<string, T>();
  return (value) => {
    let found = known.get(value);
    if (found === undefined) {
      found = answer(value);
      if (known.size >= most) known.clear();
      known.set(value, found);
    }
    return found;
  };
}
