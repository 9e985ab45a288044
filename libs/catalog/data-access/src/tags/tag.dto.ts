import { IsOmittable } from '@tenet/edge';
import { PatchOf, IsArray, IsString, Length } from '@tenet/platform-runtime/validation';

export class TagCreationDto {
  @IsString() @Length(1, 100, { message: 'name must be 1-100 characters' }) name!: string;
}

@PatchOf(TagCreationDto)
export class TagUpdateDto {
  @IsString() @Length(1, 100, { message: 'name must be 1-100 characters' }) name!: string;
}

/** Parlant's PATCH shape for a tag list on any resource: `{ add?: [...], remove?: [...] }`. */
export class TagsPatchDto {
  @IsOmittable() @IsArray() @IsString({ each: true }) add?: string[];
  @IsOmittable() @IsArray() @IsString({ each: true }) remove?: string[];
}

export interface TagView {
  id: string;
  name: string;
  creation_utc: string;
}

/** Applies a Parlant `{add, remove}` patch: removals win over additions, order of first appearance kept. */
export function patchList(
  current: readonly string[],
  patch: { add?: string[] | undefined; remove?: string[] | undefined } | undefined,
): string[] {
  const removed = new Set(patch?.remove ?? []);
  return [...new Set([...current, ...(patch?.add ?? [])])].filter((item) => !removed.has(item));
}
