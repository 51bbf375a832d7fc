/** Maps of lists: the grouping the planner and the rule types do on every plan. */

/** Appends `value` to the list at `key`, starting the list when there is none. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
