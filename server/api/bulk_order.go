package api

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/workflowpp/wfpp/engine"
)

// BulkAction is what a bulk operation does to each of its items.
type BulkAction string

// The bulk actions.
const (
	BulkRetry   BulkAction = "retry-incidents"      // resolve each incident, as POST /incidents/:id/resolve
	BulkReplay  BulkAction = "replay-dead-letters"  // as POST /dead-letters/:id/replay
	BulkDiscard BulkAction = "discard-dead-letters" // as POST /dead-letters/:id/discard
)

var bulkActions = []BulkAction{BulkRetry, BulkReplay, BulkDiscard}

// BulkOrder is a bulk operation on chosen items. In a cluster the replica
// that received the request runs the items of the partitions it holds and
// sends each other owner the order restricted to its items
// (Peers.Bulk), so that the client gets one answer, as from one server.
type BulkOrder struct {
	Action    BulkAction     `json:"action"`
	Items     []BulkItem     `json:"items"`
	Variables map[string]any `json:"variables,omitempty"` // merged into each instance first (retry, replay)
	User      string         `json:"user"`                // on whose behalf: a dead letter's history keeps it
}

// BulkItem is one incident or dead letter of a BulkOrder.
type BulkItem struct {
	ID       string `json:"id"`
	Instance string `json:"instance"` // the instance it belongs to: resolving an incident names it
}

// runBulk runs o's items and returns how many were done and those that
// failed, in the order of the items. from is the replica that sent o here,
// "" for a client's request: then the items of partitions another replica
// holds go to that owner, one part per owner, all at once. A part another
// replica sent goes no further (one hop, as a forwarded request): an item
// whose partition moved on meanwhile fails, and the client retries it.
func (s *Service) runBulk(ctx context.Context, o BulkOrder, from string) (int, []BulkFailed) {
	var (
		mu     sync.Mutex
		done   int
		failed = map[string]BulkFailed{}
		away   = map[engine.Replica][]BulkItem{} // by owner: id and address
	)
	fail := func(id string, err error) {
		e := Classify(err)
		failed[id] = BulkFailed{ID: id, Code: e.Code, Error: e.Message}
	}
	for _, it := range o.Items {
		err := s.bulkDo(ctx, o, it)
		var notOwner *engine.NotOwnerError
		switch {
		case err == nil:
			done++
		case errors.As(err, &notOwner) && from != "":
			fail(it.ID, fmt.Errorf("replica %s sent it here, to its partition's owner, but the partition moved on: "+
				"try again in a second: %w", from, err))
		case errors.As(err, &notOwner) && notOwner.Address != "" && s.cfg.Peers != nil:
			owner := engine.Replica{ID: notOwner.Owner, Address: notOwner.Address}
			away[owner] = append(away[owner], it)
		default:
			fail(it.ID, err)
		}
	}
	var wg sync.WaitGroup
	for owner, items := range away {
		wg.Go(func() {
			part := o
			part.Items = items
			res, err := s.cfg.Peers.Bulk(ctx, owner, part)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				for _, it := range items {
					fail(it.ID, fmt.Errorf("sending it to its partition's owner: %w", err))
				}
				return
			}
			done += res.Done
			for _, f := range res.Failed {
				failed[f.ID] = f
			}
		})
	}
	wg.Wait()
	out := []BulkFailed{}
	for _, it := range o.Items {
		if f, ok := failed[it.ID]; ok {
			out = append(out, f)
		}
	}
	return done, out
}

// bulkDo does o's action to one item.
func (s *Service) bulkDo(ctx context.Context, o BulkOrder, it BulkItem) error {
	var err error
	switch o.Action {
	case BulkRetry:
		_, err = s.eng.ResolveIncident(ctx, it.Instance, it.ID, o.Variables)
	case BulkReplay:
		_, _, err = s.eng.ReplayDeadLetter(ctx, it.ID, o.User, o.Variables)
	case BulkDiscard:
		_, err = s.eng.DiscardDeadLetter(ctx, it.ID, o.User)
	}
	return err
}

// BulkHere runs the part of a bulk operation replica from sent here, whose
// items lie in partitions this replica holds (the cluster's internal bulk
// route): it asks no other replica.
func (s *Service) BulkHere(ctx context.Context, o BulkOrder, from string) (BulkResult, error) {
	switch {
	case !slices.Contains(bulkActions, o.Action):
		return BulkResult{}, BadRequest("bulk order: action %q: use one of %v", o.Action, bulkActions)
	case len(o.Items) > BulkMax:
		return BulkResult{}, BadRequest("bulk order: %d items, at most %d", len(o.Items), BulkMax)
	case from == "":
		return BulkResult{}, BadRequest("bulk order: from (the replica that sends it) is required")
	}
	res := BulkResult{Matched: len(o.Items)}
	res.Done, res.Failed = s.runBulk(ctx, o, from)
	s.log.Info("bulk part run", "action", o.Action, "from", from, "items", len(o.Items), "done", res.Done, "failed", len(res.Failed), "user", o.User)
	return res, nil
}
