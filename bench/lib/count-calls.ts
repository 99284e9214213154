/** Counts the commands an SDK client sends, by command name (GetCommand, SendMessageBatchCommand ...). */
export function countCommands(doc: { send: (...args: never[]) => Promise<unknown> }): Map<string, number> {
  const counts = new Map<string, number>();
  const send = doc.send.bind(doc) as (...args: unknown[]) => Promise<unknown>;
  (doc as { send: (...args: unknown[]) => Promise<unknown> }).send = (command: unknown, ...rest: unknown[]) => {
    const name = (command as { constructor: { name: string } }).constructor.name;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return send(command, ...rest);
  };
  return counts;
}
