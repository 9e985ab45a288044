import { Type } from 'class-transformer';
import { IsIn, IsObject, IsString, Matches, ValidateNested } from '@tenet/platform-runtime/validation';
import { ToolIdDto } from '../context-variables/context-variable.dto.js';
import { ID_PATTERN, IsOmittable } from '@tenet/edge';

/**
 * Relationship kinds on the wire: Parlant's REST `RelationshipKindDTO` (src/parlant/api/common.py: entailment,
 * priority, dependency, disambiguation, overlap, reevaluation) plus `dependency_any`, which Parlant's core has
 * (src/parlant/core/relationships.py `RelationshipKind.DEPENDENCY_ANY`) but its REST enum does not — a Tenet
 * extension on the wire: the source stays active if ANY of its targets is.
 */
export const RELATIONSHIP_KINDS = [
  'entailment',
  'priority',
  'dependency',
  'dependency_any',
  'disambiguation',
  'reevaluation',
  'overlap',
] as const;
export type RelationshipKindName = (typeof RELATIONSHIP_KINDS)[number];

const KIND_RULE = { message: `kind must be one of ${RELATIONSHIP_KINDS.join(', ')}` };
const id = (field: string) => Matches(ID_PATTERN, { message: `${field} must be 1-64 characters of [A-Za-z0-9_-]` });
/** Tag ids may also be Parlant's synthetic `agent:<id>` / `journey:<id>` tags. */
const TAG_ID = /^[A-Za-z0-9_:-]{1,80}$/;
const tagId = (field: string) => Matches(TAG_ID, { message: `${field} must be a tag id (1-80 characters of [A-Za-z0-9_:-])` });

/**
 * Parlant's `RelationshipCreationParamsDTO` (src/parlant/api/relationships.py): one source and one target, each
 * a guideline or a tag (or, in Parlant, a tool — accepted on the wire and refused with a 422, see the repository).
 */
export class RelationshipCreationDto {
  @IsOmittable() @IsString() @id('source_guideline') source_guideline?: string;
  @IsOmittable() @IsString() @tagId('source_tag') source_tag?: string;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => ToolIdDto) source_tool?: ToolIdDto;
  @IsOmittable() @IsString() @id('target_guideline') target_guideline?: string;
  @IsOmittable() @IsString() @tagId('target_tag') target_tag?: string;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => ToolIdDto) target_tool?: ToolIdDto;
  @IsIn(RELATIONSHIP_KINDS, KIND_RULE) kind!: RelationshipKindName;
}

export interface Endpoint {
  type: 'guideline' | 'tag';
  id: string;
}

/** What the matcher resolves (`@tenet/matching-domain` `GuidelineRelationship`). */
export interface Relationship {
  id: string;
  kind: RelationshipKindName;
  source: Endpoint;
  target: Endpoint;
}

/** Stored shape: the relationship and when it was created. */
export interface RelationshipRecord extends Relationship {
  creation_utc: string;
}

export interface RelationshipFilter {
  kind?: RelationshipKindName | undefined;
  guidelineId?: string | undefined;
  tagId?: string | undefined;
  /** Parlant's default: true — follow chains of the same kind (descendants as source, ancestors as target). */
  indirect?: boolean | undefined;
}
