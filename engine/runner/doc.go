// Package runner runs one instance of a definition headless, in memory, on a
// virtual clock: what `wfpp run` does, and what the conformance tests use.
//
// Time jumps ahead only when nothing else can happen: the engine is idle,
// no task is left to complete and no message left to deliver. Messages are
// delivered as soon as the instance waits, before any virtual time passes.
package runner
