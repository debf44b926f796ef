package engine

import (
	"context"
	"time"
)

// ChangeDigest says which instances one replica committed lately. Without
// Redis, each replica's live event source reads the other replicas'
// digests, a few small documents found by _id, instead of querying every
// instance for recent updates (on the embedded store any such query decodes
// the whole instances collection), and reads the events of the instances
// they name from the log.
type ChangeDigest struct {
	Replica   string         `json:"replica"`
	Published time.Time      `json:"publishedAt"`
	Changes   []DigestChange `json:"changes"`
}

// DigestChange is one instance of a ChangeDigest: its events after After,
// up to Seq, were committed, the last at At. TaskSeq is the last of them
// that changed a task (Event.Task), 0 if none did: a replica that follows
// only task changes (its inbox) need not read the others.
type DigestChange struct {
	InstanceID string    `json:"instanceId"`
	After      uint64    `json:"after"`
	Seq        uint64    `json:"seq"`
	TaskSeq    uint64    `json:"taskSeq,omitempty"`
	At         time.Time `json:"at"`
}

// ChangeDigests is where replicas publish their ChangeDigests: one per
// replica, replaced at each publication.
type ChangeDigests interface {
	PublishDigest(ctx context.Context, d ChangeDigest) error
	// Digests returns every replica's digest but except's: a replica reads
	// the others', not its own.
	Digests(ctx context.Context, except string) ([]ChangeDigest, error)
	// RemoveDigests removes the digests published before before: those of
	// replicas gone.
	RemoveDigests(ctx context.Context, before time.Time) error
}
