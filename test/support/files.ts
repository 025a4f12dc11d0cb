import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Writes a JSON settings file (clients, identity providers) for a test app; removed by the OS tmp cleaner or `rm`. */
export function jsonFile(name: string, content: unknown): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-settings-'));
  const file = path.join(folder, name);
  fs.writeFileSync(file, JSON.stringify(content));
  return file;
}
