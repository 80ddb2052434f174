/**
 * Finds typed arrays anywhere inside values (object properties, array elements, Map keys and
 * values, Set members), each object once: what a task's earlier sends still carry when it moves
 * an array (task.ts).
 */

/** Whether a typed array inside `values` passes `test`. Iterative: deep values cannot overflow the stack. */
export function someViewInside(values: readonly unknown[], test: (v: ArrayBufferView) => boolean): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = [...values];
  while (stack.length !== 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    seen.add(v);
    if (ArrayBuffer.isView(v)) {
      if (test(v)) return true;
    } else if (Array.isArray(v)) {
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
