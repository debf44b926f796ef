package memstore

import (
	"encoding/binary"
	"fmt"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/codec"
)

// parking holds waiting instances that have not changed for a while (see
// WithParking), with their tasks, encoded, in memory the garbage collector
// does not trace: byte slabs, and maps whose keys and values hold no
// pointers.
//
// Held as Go structures, a million waiting instances were some ten million
// pointers that every collection cycle marked again, which made each other
// instance cost 2.45 times what it cost with a thousand waiting. Encoded, the
// heap they take is not scanned, and the cost stays flat.
type parking struct {
	slabs   [][]byte        // records, appended; full slabs are never written again
	index   map[idKey]slot  // instance id → its record
	tasks   map[idKey]idKey // task id → instance id, for the parked instances' tasks
	live    int             // bytes of the records in index
	garbage int             // bytes of records no longer in index
}

// slabSize is the size of a slab; a record larger than it gets a slab of its own.
const slabSize = 4 << 20

// slot is where a record is, and the parked snapshot's seq and epoch (for
// the commit guards, without decoding; the codec leaves the epoch out).
type slot struct {
	slab, off, n uint32
	seq          uint64
	epoch        int64
}

// idKey is an id as a map key with no pointer in it: its length, then its bytes.
type idKey [40]byte

func keyOf(id string) (idKey, bool) {
	var k idKey
	if len(id) >= len(k) {
		return k, false
	}
	k[0] = byte(len(id))
	copy(k[1:], id)
	return k, true
}

func (k idKey) String() string { return string(k[1 : 1+k[0]]) }

func newParking() parking {
	return parking{index: map[idKey]slot{}, tasks: map[idKey]idKey{}}
}

// park stores snap and its tasks. It reports false, storing nothing, when an
// id is too long for a key or a value is of a type the codec does not keep:
// such an instance stays as it is.
func (p *parking) park(snap *engine.Snapshot, tasks []engine.Task) bool {
	k, ok := keyOf(snap.ID)
	if !ok {
		return false
	}
	taskKeys := make([]idKey, len(tasks))
	for i, t := range tasks {
		if taskKeys[i], ok = keyOf(t.ID); !ok {
			return false
		}
	}
	s, err := codec.EncodeSnapshot(snap)
	if err != nil {
		return false
	}
	t, err := codec.EncodeTasks(tasks)
	if err != nil {
		return false
	}
	rec := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen32+len(s)+len(t)), uint64(len(s)))
	rec = append(append(rec, s...), t...)
	p.index[k] = p.append(rec, slot{seq: snap.Seq, epoch: snap.Epoch})
	p.live += len(rec)
	for _, tk := range taskKeys {
		p.tasks[tk] = k
	}
	return true
}

// append writes rec to a slab and returns its slot, with the guards of meta.
func (p *parking) append(rec []byte, meta slot) slot {
	last := len(p.slabs) - 1
	if last < 0 || len(p.slabs[last])+len(rec) > cap(p.slabs[last]) {
		p.slabs = append(p.slabs, make([]byte, 0, max(slabSize, len(rec))))
		last++
	}
	off := len(p.slabs[last])
	p.slabs[last] = append(p.slabs[last], rec...)
	return slot{slab: uint32(last), off: uint32(off), n: uint32(len(rec)), seq: meta.seq, epoch: meta.epoch}
}

// guards returns the parked instance's slot, whose seq and epoch guard commits.
func (p *parking) guards(id string) (slot, bool) {
	k, ok := keyOf(id)
	if !ok {
		return slot{}, false
	}
	sl, ok := p.index[k]
	return sl, ok
}

// fence raises the epoch of a parked instance to epoch where it is lower.
func (p *parking) fence(id string, epoch int64) {
	k, _ := keyOf(id)
	if sl, ok := p.index[k]; ok && sl.epoch < epoch {
		sl.epoch = epoch
		p.index[k] = sl
	}
}

// get decodes a parked instance and its tasks.
func (p *parking) get(id string) (*engine.Snapshot, []engine.Task, bool, error) {
	k, ok := keyOf(id)
	if !ok {
		return nil, nil, false, nil
	}
	sl, ok := p.index[k]
	if !ok {
		return nil, nil, false, nil
	}
	snap, tasks, err := p.decode(sl)
	return snap, tasks, true, err
}

func (p *parking) decode(sl slot) (*engine.Snapshot, []engine.Task, error) {
	rec := p.slabs[sl.slab][sl.off : sl.off+sl.n]
	n, w := binary.Uvarint(rec)
	if w <= 0 || uint64(len(rec)-w) < n {
		return nil, nil, fmt.Errorf("memstore: parked record is damaged")
	}
	snap, err := codec.DecodeSnapshot(rec[w : w+int(n)])
	if err != nil {
		return nil, nil, fmt.Errorf("memstore: decoding a parked instance: %w", err)
	}
	snap.Epoch = sl.epoch
	tasks, err := codec.DecodeTasks(rec[w+int(n):])
	if err != nil {
		return nil, nil, fmt.Errorf("memstore: decoding the tasks of parked instance %s: %w", snap.ID, err)
	}
	return snap, tasks, nil
}

// take removes a parked instance and returns it with its tasks.
func (p *parking) take(id string) (*engine.Snapshot, []engine.Task, bool, error) {
	snap, tasks, ok, err := p.get(id)
	if !ok || err != nil {
		return snap, tasks, ok, err
	}
	k, _ := keyOf(id)
	sl := p.index[k]
	delete(p.index, k)
	for _, t := range tasks {
		tk, _ := keyOf(t.ID)
		delete(p.tasks, tk)
	}
	p.live -= int(sl.n)
	p.garbage += int(sl.n)
	p.compact()
	return snap, tasks, true, nil
}

// compact copies the records in use into new slabs once most of the bytes
// held are records no longer in use.
func (p *parking) compact() {
	if p.garbage < 4*slabSize || p.garbage < p.live {
		return
	}
	old := p.slabs
	p.slabs = nil
	for k, sl := range p.index {
		p.index[k] = p.append(old[sl.slab][sl.off:sl.off+sl.n], sl)
	}
	p.garbage = 0
}

// instanceOfTask returns the id of the parked instance a task belongs to.
func (p *parking) instanceOfTask(taskID string) (string, bool) {
	tk, ok := keyOf(taskID)
	if !ok {
		return "", false
	}
	k, ok := p.tasks[tk]
	if !ok {
		return "", false
	}
	return k.String(), true
}

// all calls fn with every parked instance and its tasks.
func (p *parking) all(fn func(*engine.Snapshot, []engine.Task)) error {
	for _, sl := range p.index {
		snap, tasks, err := p.decode(sl)
		if err != nil {
			return err
		}
		fn(snap, tasks)
	}
	return nil
}

// lookup returns a copy of an instance, held or parked.
func (s *Store) lookup(id string) (*engine.Snapshot, bool, error) {
	if snap, ok := s.instances[id]; ok {
		return clone(snap), true, nil
	}
	snap, _, ok, err := s.parked.get(id)
	return snap, ok, err
}

// existing returns a copy of a stored instance and ErrDuplicate.
func (s *Store) existing(id string) (*engine.Snapshot, error) {
	snap, _, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	return snap, engine.ErrDuplicate
}

// guardsOf returns the seq and epoch of an instance, held or parked.
func (s *Store) guardsOf(id string) (seq uint64, epoch int64, ok bool) {
	if snap, ok := s.instances[id]; ok {
		return snap.Seq, snap.Epoch, true
	}
	if len(s.parked.index) == 0 {
		return 0, 0, false
	}
	sl, ok := s.parked.guards(id)
	return sl.seq, sl.epoch, ok
}

// unpark makes a parked instance and its tasks Go values again, before a
// change to it.
func (s *Store) unpark(id string) error {
	if _, held := s.instances[id]; held || len(s.parked.index) == 0 {
		return nil // never both held and parked
	}
	snap, tasks, ok, err := s.parked.take(id)
	if !ok || err != nil {
		return err
	}
	s.instances[id] = snap
	for _, t := range tasks {
		s.tasks[t.ID] = t
		s.taskIDs[id] = append(s.taskIDs[id], t.ID)
	}
	return nil
}

// parkOld parks the instances that waited longest ago, beyond the most
// recent parkAfter, if they have not changed since.
func (s *Store) parkOld() {
	if s.parkAfter < 0 {
		return
	}
	for len(s.recent) > s.parkAfter {
		w := s.recent[0]
		s.recent = s.recent[1:]
		snap, ok := s.instances[w.id]
		if !ok || snap.Seq != w.seq || snap.Status != engine.StatusWaiting {
			continue
		}
		tasks := make([]engine.Task, 0, len(s.taskIDs[w.id]))
		for _, tid := range s.taskIDs[w.id] {
			tasks = append(tasks, s.tasks[tid])
		}
		if !s.parked.park(snap, tasks) {
			continue
		}
		delete(s.instances, w.id)
		for _, t := range tasks {
			delete(s.tasks, t.ID)
		}
		delete(s.taskIDs, w.id)
	}
}
