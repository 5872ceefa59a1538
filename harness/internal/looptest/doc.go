// Package looptest holds what the conformance suites' loop steps
// (gctest, replicasettest, rollouttest, schedulertest) share in running
// an implementation's Run over a fake apiserver in process: the Run on a
// goroutine of its own, its stop, the wait on a condition, and the spy's
// held-back Lists. Each suite keeps its own messages where they differ:
// the differing text is a parameter, and every message is built here
// from it exactly as the suites built it before.
//
//  1. Start runs an implementation's Run on its own goroutine, on a
//     context of its own that Stop ends; a panic in Run comes back as
//     Run's error, "panic: <value>", followed by "\n\tat <frame>" when
//     suite.ImplementationFrame finds the implementation's frame.
//  2. Run.Early fails the step (Fatalf) when Run returned while its
//     context was still on: "Run(ctx) returned <err> before its context
//     ended, want it to <Until> until ctx is done".
//  3. Run.Stop ends Run's context and wants Run to return within
//     Stop.Return: an error other than context.Canceled is "Run(ctx) =
//     <err> after ctx ended, want <Want>"; no return is "Run(ctx) did not
//     return within <Return> after ctx ended, want it to stop <Stops> and
//     return". Once Run returned, it polls (every Stop.Poll, for
//     Stop.Goroutines at most) until no goroutine of the implementation
//     is left but those of the Baseline taken before the step, and
//     reports the first one left otherwise. Both are Errorf: the step
//     goes on. Stop reports whether Run returned and its goroutines
//     ended.
//  4. Snapshot takes the Baseline: the implementation's goroutines
//     (suite.ImplementationGoroutines) by their "goroutine N" line, which
//     a step does not answer for.
//  5. Wait.For polls a condition until it holds, for Wait.Max at most
//     (less when the context's deadline, minus Wait.Margin, comes
//     sooner and Margin is set), calling Check and then Advance after
//     each poll that failed; it fails the step with "waited <d> for
//     <what>; last seen: <saw>" (d: Max, or the time waited when Elapsed
//     is set), or "the step's deadline passed while waiting for <what>;
//     last seen: <saw>" when the context ends first.
//  6. Holds holds back a spy's Lists of some resources until they are
//     released, or the List's context ends.
package looptest
