package mongostore

import (
	"context"

	"github.com/workflowpp/wfpp/engine"
)

// CrashAfterSnapshots does the first step of Commit only, storing the
// snapshots (the commit point) but not the events and projections: what a
// crash between the two leaves behind.
func (s *Store) CrashAfterSnapshots(ctx context.Context, b *engine.Batch) error {
	_, conflict, err := s.writeSnapshots(ctx, b.Changes, s.modeOf(b))
	if err != nil {
		return err
	}
	return conflict
}

// FailAfterEvents does the first step of a single writer's Commit only,
// putting the events into the log: what an attempt whose snapshots then fail
// leaves behind.
func (s *Store) FailAfterEvents(ctx context.Context, b *engine.Batch) error {
	return s.writeEventsFirst(ctx, b.Changes)
}

// WriteTasks writes tasks' inbox records as a commit fenced at epoch (0:
// not fenced) writes them after its snapshot.
func (s *Store) WriteTasks(ctx context.Context, epoch int64, tasks ...engine.Task) error {
	return s.WriteRecords(ctx, epoch, engine.Change{Tasks: tasks})
}

// WriteRecords writes the task, incident and dead-letter records of c, and
// moves its dead letters, as a commit fenced at epoch (0: not fenced) does
// after its snapshot.
func (s *Store) WriteRecords(ctx context.Context, epoch int64, c engine.Change) error {
	r := redoOf(c, true)
	return s.writeProjections(ctx, r.taskModels(epoch), r.incidentModels(epoch), r.letterModels(epoch))
}

// AfterNewInsert has fn run between the insert of new instances and the
// check of their partitions' leases (storetest.NewInsertHook).
func (s *Store) AfterNewInsert(fn func()) { s.newInserted = fn }
