package engine

import (
	"sync"
	"time"
)

// versionRecordTTL bounds how long a version record is trusted without
// being read again, even at an unchanged head Rev: a process that stopped
// between changing a version and raising its head's Rev leaves the other
// replicas on the old status at most this long.
const versionRecordTTL = 5 * time.Second

// versionRecords keeps the version records DefaultVersion picks from, each
// with the head Rev it was read at. Every start reads the key's head from
// the store (a move of the default reaches every replica at once); a record
// read at the head's current Rev, less than versionRecordTTL ago, is still
// current and is not read again. In a cluster that saves a read of the
// store or Redis per start.
type versionRecords struct {
	mu   sync.Mutex
	byID map[string]versionRecord
}

type versionRecord struct {
	rec  DefinitionRecord
	rev  int64
	read time.Time
}

func newVersionRecords() *versionRecords {
	return &versionRecords{byID: map[string]versionRecord{}}
}

// get returns the record of version id if it was read at rev, less than
// versionRecordTTL before now.
func (c *versionRecords) get(id string, rev int64, now time.Time) (DefinitionRecord, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.byID[id]
	if !ok || v.rev != rev || now.Sub(v.read) >= versionRecordTTL || now.Before(v.read) {
		return DefinitionRecord{}, false
	}
	return v.rec, true
}

// put keeps rec, read at head Rev rev at time now.
func (c *versionRecords) put(rec DefinitionRecord, rev int64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byID[rec.ID] = versionRecord{rec: rec, rev: rev, read: now}
}

// forget drops version id: this process changed it.
func (c *versionRecords) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byID, id)
}
