/**
 * Walks everything inside values (object properties, array elements, Map keys and values, Set
 * members), each object once: for the buffers a task's inputs carry (device/migrate.ts) and for
 * what a task's earlier sends still carry when it moves an array (task.ts).
 */

/**
 * Whether `look` finds something inside `values`. `look` sees each object once and answers
 * true (found: the walk stops), false (a leaf: not looked inside) or undefined (look inside).
 * Typed arrays and ArrayBuffers are always leaves. Iterative: deep values cannot overflow the stack.
 */
export function someInside(values: readonly unknown[], look: (o: object) => boolean | undefined): boolean {
  let seen: Set<object> | undefined;
  const stack: unknown[] = [...values];
  while (stack.length !== 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    seen ??= new Set();
    if (seen.has(v)) continue;
    seen.add(v);
    const said = look(v);
    if (said === true) return true;
    if (said === false || ArrayBuffer.isView(v) || v instanceof ArrayBuffer) continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v instanceof Map) {
      for (const [k, x] of v) stack.push(k, x);
    } else if (v instanceof Set) {
      for (const x of v) stack.push(x);
    } else {
      for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}

/** Whether a typed array inside `values` passes `test`. */
export function someViewInside(values: readonly unknown[], test: (v: ArrayBufferView) => boolean): boolean {
  return someInside(values, (o) => (ArrayBuffer.isView(o) ? test(o) : undefined));
}
