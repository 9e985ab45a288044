const FIELD = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g;

/** The `{{field}}` placeholders of a canned response, in order of first appearance. */
export function templateFields(template: string): string[] {
  return [...new Set([...template.matchAll(FIELD)].map((m) => m[1] ?? ''))];
}

/** Renders a canned response; `undefined` when a field has no value (such a template cannot be used). */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string | undefined {
  let missing = false;
  const rendered = template.replace(FIELD, (_all, name: string) => {
    const value = values[name];
    if (value === undefined) missing = true;
    return value ?? '';
  });
  return missing ? undefined : rendered;
}
