import { ArgsType, Field, Int, ObjectType, type ClassType } from 'type-graphql';
import type { Page, PagedList } from '../kernel/paging';

/*
 * The types here are plain data read as properties (`simpleResolvers`): without it, type-graphql
 * wraps every field in a resolver of its own that allocates per call, and graphql-jit then builds
 * a resolve info for each. A getter is still read as a property; a method field (`totalCount`)
 * keeps its resolver. A property that holds a promise needs a resolver (graphql-jit reads simple
 * fields without awaiting them), so such fields are methods or `simple: false`.
 */
@ObjectType({
  simpleResolvers: true,
  description: 'Where a page lies in its list, and the cursors to ask for the next one.',
})
export class PageInfo {
  constructor(private readonly page: Page<unknown>) {}

  @Field({ description: 'Whether rows follow this page: ask for them with `after: endCursor`.' })
  get hasNextPage(): boolean {
    return this.page.hasNextPage;
  }

  @Field({ description: 'Whether rows precede this page (it was asked with `after`).' })
  get hasPreviousPage(): boolean {
    return this.page.hasPreviousPage;
  }

  @Field(() => String, { nullable: true, description: 'The cursor of the first row of the page; null when empty.' })
  get startCursor(): string | null {
    return this.page.nodes.length ? this.page.cursorAt(0) : null;
  }

  @Field(() => String, {
    nullable: true,
    description: 'The cursor of the last row of the page, to pass as `after`; null when the page is empty.',
  })
  get endCursor(): string | null {
    return this.page.nodes.length ? this.page.cursorAt(this.page.nodes.length - 1) : null;
  }
}

/** What a connection answers: its page, and how to count the whole list when asked. */
export type ConnectionSource<T> = PagedList<T>;

export interface ConnectionClass<T> {
  new (): { nodes: T[] };
  of<R>(source: ConnectionSource<R>, map: (row: R) => T): InstanceType<ConnectionClass<T>>;
}

/**
 * The connection and edge types of a list of `Node`s (`BlobConnection`, `BlobEdge`), as the
 * Relay connection specification shapes them. `totalCount` is counted only when asked.
 */
export function connectionOf<T extends object>(Node: ClassType<T>, name: string, what: string) {
  @ObjectType(`${name}Edge`, { simpleResolvers: true, description: `One ${what} of a page, with its cursor.` })
  class Edge {
    @Field(() => Node, { description: `The ${what}.` })
    node!: T;

    encode!: () => string;

    @Field({ description: `Opaque: pass it as \`after\` to list the ${what}s that follow this one.` })
    get cursor(): string {
      return this.encode();
    }
  }

  // Edges and cursors are built only when a query selects them (see Page.cursorAt).
  @ObjectType(`${name}Connection`, {
    simpleResolvers: true,
    description: `A page of ${what}s, with the cursors to page on.`,
  })
  class Connection {
    @Field(() => [Node], { description: `The ${what}s of the page, when their cursors are not needed.` })
    nodes!: T[];

    page!: Page<unknown>;

    count!: () => Promise<number>;

    @Field(() => [Edge], { description: `The ${what}s of the page with their cursors.` })
    get edges(): Edge[] {
      return this.nodes.map((node, index) =>
        Object.assign(new Edge(), { node, encode: () => this.page.cursorAt(index) }),
      );
    }

    @Field(() => PageInfo, { description: 'Where the page lies in the list.' })
    get pageInfo(): PageInfo {
      return new PageInfo(this.page);
    }

    @Field(() => Int, {
      description: `How many ${what}s the whole list holds, across pages. Counted only when asked (one more query).`,
    })
    totalCount(): Promise<number> {
      return this.count();
    }

    static of<R>(source: ConnectionSource<R>, map: (row: R) => T): Connection {
      const { page, count } = source;
      return Object.assign(new Connection(), { nodes: page.nodes.map(map), page, count });
    }
  }
  return Connection;
}

/** Descriptions of the paging arguments, the same on every connection field. */
export const FIRST_DESCRIPTION = 'How many to list: 1 to 100, 100 when omitted. More is refused (BAD_USER_INPUT).';
export const AFTER_DESCRIPTION =
  'List what follows this cursor (an `endCursor` or edge `cursor` of the same list); from the start when omitted.';

/** The paging arguments of every connection field. */
@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true, description: FIRST_DESCRIPTION })
  first?: number | null;

  @Field(() => String, { nullable: true, description: AFTER_DESCRIPTION })
  after?: string | null;
}

/**
 * The paging arguments of the lists the legacy REST API pages by offset: `offset` skips rows in
 * the same query, so a deep page costs what the first does.
 */
@ArgsType()
export class OffsetPageArgs extends PageArgs {
  @Field(() => Int, {
    nullable: true,
    description:
      'Rows to skip first (after `after` when given), for offset paging; none when omitted. Prefer `after`: rows added meanwhile shift an offset.',
  })
  offset?: number | null;
}
