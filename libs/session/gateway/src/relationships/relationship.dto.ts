import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { ID_PATTERN } from '../ids.js';

/**
 * Parlant's relationship kinds, plus `dependency_any` (Parlant's core has it; its REST enum does not yet):
 * the source stays active if any of its targets is.
 */
export const RELATIONSHIP_KINDS = ['entailment', 'priority', 'dependency', 'dependency_any', 'disambiguation', 'overlap', 'reevaluation'] as const;
export type RelationshipKindName = (typeof RELATIONSHIP_KINDS)[number];

const id = (field: string) => Matches(ID_PATTERN, { message: `${field} must be 1-64 characters of [A-Za-z0-9_-]` });

/** Parlant's creation body: exactly one source (guideline or tag) and one target (guideline or tag). */
export class RelationshipCreationDto {
  @IsOptional() @IsString() @id('id') id?: string;
  @IsOptional() @IsString() @id('source_guideline') source_guideline?: string;
  @IsOptional() @IsString() @id('source_tag') source_tag?: string;
  @IsOptional() @IsString() @id('target_guideline') target_guideline?: string;
  @IsOptional() @IsString() @id('target_tag') target_tag?: string;
  @IsIn(RELATIONSHIP_KINDS, { message: `kind must be one of ${RELATIONSHIP_KINDS.join(', ')}` }) kind!: RelationshipKindName;
}

export interface Endpoint {
  type: 'guideline' | 'tag';
  id: string;
}

/** Stored shape, and what the matcher resolves. */
export interface RelationshipRecord {
  id: string;
  kind: RelationshipKindName;
  source: Endpoint;
  target: Endpoint;
  creation_utc: string;
}
