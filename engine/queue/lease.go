package queue

import (
	"errors"
	"time"
)

var (
	// ErrLeaseNotFound is returned by Ack, Nack and Extend for a lease that
	// is no longer held: already acked or nacked, or expired and re-queued
	// (the item may now be leased by another worker). Do not retry; the
	// work will be redone under a new lease.
	ErrLeaseNotFound = errors.New("queue: lease not found (acked, nacked or expired)")
	// ErrLeaseExpired is the cause given to DeadLetter when an item's last
	// lease timed out without Ack or Nack.
	ErrLeaseExpired = errors.New("queue: lease expired without ack or nack")
	// ErrMaxAttempts wraps the reason given to DeadLetter when an item ran
	// out of attempts.
	ErrMaxAttempts = errors.New("queue: out of attempts")
	// errNoReason stands in for a nil error passed to Nack.
	errNoReason = errors.New("nacked without a reason")
)

// Lease is an item handed to one worker until Deadline. The worker ends it
// with Ack or Nack, or extends it with Extend; if Deadline passes first, the
// item is re-queued for another worker.
type Lease[T any] struct {
	Item     Item[T]
	Deadline time.Time
	token    uint64 // key in the lease table; unique per lease, not per item
}

// leaseEntry is a lease table row.
type leaseEntry[T any] struct {
	item     Item[T]
	deadline time.Time
}

// retry is an item waiting out its backoff, or waiting for room in its ring.
type retry[T any] struct {
	item Item[T]
	due  time.Time
}
