/**
 * Given/when/then for deciders (after emmett's DeciderSpecification): events in, events out — never mock
 * calls. `given(past).when(command).then(expected)` folds `past` with `evolve`, runs `decide`, and
 * compares the produced events; `thenThrows` checks a typed error by its code.
 */
export interface Decider<Command, Event, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}

export function deciderSpec<Command, Event, State>(decider: Decider<Command, Event, State>) {
  return {
    given(past: Event[]) {
      return {
        when(command: Command) {
          const run = (): Event[] => decider.decide(command, past.reduce(decider.evolve, decider.initialState()));
          return {
            then(expected: Event[]): void {
              expect(run()).toEqual(expected);
            },
            thenNothingHappens(): void {
              expect(run()).toEqual([]);
            },
            thenThrows(code: string, message?: RegExp): void {
              let thrown: unknown;
              try {
                run();
              } catch (error) {
                thrown = error;
              }
              expect(thrown).toMatchObject({ code });
              if (message) expect((thrown as Error).message).toMatch(message);
            },
          };
        },
      };
    },
  };
}
