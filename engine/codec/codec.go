// Package codec encodes snapshots, events and definitions as JSON that keeps
// the Go types of JSON-like values as the stores hand them back: int64 and
// float64 stay apart (1 and 1.0), times and bytes come back as time.Time and
// []byte, nil and empty containers stay apart. Values of other types are
// refused (ErrUnsupported). The Redis cache stores and sends this form, and
// memstore keeps waiting instances in it.
package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

// ErrUnsupported says a value is not of a JSON-like type the codec keeps.
var ErrUnsupported = errors.New("value of a type the codec does not keep")

// tagPrefix starts the one key of an object standing for a typed value.
const tagPrefix = "\x00"

const (
	tagTime     = tagPrefix + "t"
	tagBytes    = tagPrefix + "b"
	tagNilList  = tagPrefix + "l"
	tagNilMap   = tagPrefix + "m"
	tagNilBytes = tagPrefix + "n"
	tagInt      = tagPrefix + "i" // a Go int, as the engine writes some details
)

func tagMap(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if strings.HasPrefix(k, tagPrefix) {
			return nil, fmt.Errorf("%w: key %q", ErrUnsupported, k)
		}
		tv, err := tag(v)
		if err != nil {
			return nil, err
		}
		out[k] = tv
	}
	return out, nil
}

func tag(v any) (any, error) {
	switch v := v.(type) {
	case nil, bool, string:
		return v, nil
	case int64:
		return json.RawMessage(strconv.FormatInt(v, 10)), nil
	case int:
		return map[string]any{tagInt: json.RawMessage(strconv.Itoa(v))}, nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: %v", ErrUnsupported, v)
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return json.RawMessage(s), nil
	case map[string]any:
		if v == nil {
			return map[string]any{tagNilMap: true}, nil
		}
		return tagMap(v)
	case []any:
		if v == nil {
			return map[string]any{tagNilList: true}, nil
		}
		out := make([]any, len(v))
		for i, e := range v {
			te, err := tag(e)
			if err != nil {
				return nil, err
			}
			out[i] = te
		}
		return out, nil
	case time.Time:
		return map[string]any{tagTime: v.Format(time.RFC3339Nano)}, nil
	case []byte:
		if v == nil {
			return map[string]any{tagNilBytes: true}, nil
		}
		return map[string]any{tagBytes: base64.StdEncoding.EncodeToString(v)}, nil
	}
	return nil, fmt.Errorf("%w: type %T", ErrUnsupported, v)
}

func untagMap(m map[string]any) (map[string]any, error) {
	for k, v := range m {
		uv, err := untag(v)
		if err != nil {
			return nil, err
		}
		m[k] = uv
	}
	return m, nil
}

func untag(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		s := string(v)
		if strings.ContainsAny(s, ".eE") {
			return strconv.ParseFloat(s, 64)
		}
		return strconv.ParseInt(s, 10, 64)
	case []any:
		for i, e := range v {
			ue, err := untag(e)
			if err != nil {
				return nil, err
			}
			v[i] = ue
		}
		return v, nil
	case map[string]any:
		if len(v) == 1 {
			for k, x := range v {
				switch k {
				case tagTime:
					s, _ := x.(string)
					return time.Parse(time.RFC3339Nano, s)
				case tagBytes:
					s, _ := x.(string)
					return base64.StdEncoding.DecodeString(s)
				case tagNilList:
					return []any(nil), nil
				case tagNilMap:
					return map[string]any(nil), nil
				case tagNilBytes:
					return []byte(nil), nil
				case tagInt:
					n, _ := x.(json.Number)
					i, err := strconv.ParseInt(string(n), 10, 64)
					return int(i), err
				}
			}
		}
		return untagMap(v)
	}
	return v, nil
}

// snapshotWire is a Snapshot with the fields its JSON tags leave out.
type snapshotWire struct {
	S          *engine.Snapshot `json:"s"`
	NextID     uint64           `json:"n"`
	Pending    []engine.Event   `json:"p"`
	TaskTokens []uint64         `json:"tt"`
}

func EncodeSnapshot(s *engine.Snapshot) ([]byte, error) {
	c := *s
	var err error
	if c.Variables, err = tagMap(s.Variables); err != nil {
		return nil, err
	}
	if s.Tokens != nil {
		c.Tokens = make([]engine.TokenState, len(s.Tokens))
		for i, t := range s.Tokens {
			if t.Local, err = tagMap(t.Local); err != nil {
				return nil, err
			}
			c.Tokens[i] = t
		}
	}
	w := snapshotWire{S: &c, NextID: s.NextID}
	if s.Tasks != nil {
		c.Tasks = make([]engine.Task, len(s.Tasks))
		w.TaskTokens = make([]uint64, len(s.Tasks))
		for i, t := range s.Tasks {
			if t.Variables, err = tagMap(t.Variables); err != nil {
				return nil, err
			}
			c.Tasks[i] = t
			w.TaskTokens[i] = t.TokenID
		}
	}
	if w.Pending, err = TagEvents(s.Pending); err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

func DecodeSnapshot(data []byte) (*engine.Snapshot, error) {
	var w snapshotWire
	if err := Decode(data, &w); err != nil {
		return nil, err
	}
	s := w.S
	if s == nil {
		return nil, errors.New("encoded snapshot is empty")
	}
	var err error
	if s.Variables, err = untagMap(s.Variables); err != nil {
		return nil, err
	}
	for i := range s.Tokens {
		if s.Tokens[i].Local, err = untagMap(s.Tokens[i].Local); err != nil {
			return nil, err
		}
	}
	if len(w.TaskTokens) != len(s.Tasks) {
		return nil, errors.New("encoded snapshot: task tokens do not match its tasks")
	}
	for i := range s.Tasks {
		if s.Tasks[i].Variables, err = untagMap(s.Tasks[i].Variables); err != nil {
			return nil, err
		}
		s.Tasks[i].TokenID = w.TaskTokens[i]
	}
	s.NextID = w.NextID
	if s.Pending, err = UntagEvents(w.Pending); err != nil {
		return nil, err
	}
	return s, nil
}

func TagEvents(evs []engine.Event) ([]engine.Event, error) {
	if evs == nil {
		return nil, nil
	}
	out := make([]engine.Event, len(evs))
	for i, e := range evs {
		var err error
		if e.Detail, err = tagMap(e.Detail); err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// TagEventsLenient is TagEvents for the fan-out, where a detail with values
// of other types is sent as plain JSON (numbers become int64 or float64).
func TagEventsLenient(evs []engine.Event) ([]engine.Event, error) {
	out := make([]engine.Event, len(evs))
	for i, e := range evs {
		d, err := tagMap(e.Detail)
		if err != nil {
			d, err = plainJSON(e.Detail)
		}
		if err != nil {
			return nil, err
		}
		e.Detail = d
		out[i] = e
	}
	return out, nil
}

func plainJSON(m map[string]any) (map[string]any, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := Decode(data, &out); err != nil {
		return nil, err
	}
	if out, err = untagMap(out); err != nil {
		return nil, err
	}
	return tagMap(out)
}

func UntagEvents(evs []engine.Event) ([]engine.Event, error) {
	for i := range evs {
		var err error
		if evs[i].Detail, err = untagMap(evs[i].Detail); err != nil {
			return nil, err
		}
	}
	return evs, nil
}

// definitionWire is a DefinitionRecord with its source, which its JSON tags leave out.
type definitionWire struct {
	R      engine.DefinitionRecord `json:"r"`
	Source []byte                  `json:"src"`
}

func EncodeDefinition(r engine.DefinitionRecord) ([]byte, error) {
	return json.Marshal(definitionWire{R: r, Source: r.Source})
}

func DecodeDefinition(data []byte) (engine.DefinitionRecord, error) {
	var w definitionWire
	if err := Decode(data, &w); err != nil {
		return engine.DefinitionRecord{}, err
	}
	w.R.Source = w.Source
	return w.R, nil
}

// Decode reads JSON with numbers in interface values left as json.Number,
// for untag to type.
func Decode(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// taskWire is a list of tasks with the fields their JSON tags leave out.
type taskWire struct {
	T      []engine.Task `json:"t"`
	Tokens []uint64      `json:"k"`
}

// EncodeTasks encodes tasks (projection records, with their variables).
func EncodeTasks(tasks []engine.Task) ([]byte, error) {
	w := taskWire{T: make([]engine.Task, len(tasks)), Tokens: make([]uint64, len(tasks))}
	for i, t := range tasks {
		var err error
		if t.Variables, err = tagMap(t.Variables); err != nil {
			return nil, err
		}
		w.T[i], w.Tokens[i] = t, t.TokenID
	}
	return json.Marshal(w)
}

// DecodeTasks decodes what EncodeTasks encoded.
func DecodeTasks(data []byte) ([]engine.Task, error) {
	var w taskWire
	if err := Decode(data, &w); err != nil {
		return nil, err
	}
	if len(w.Tokens) != len(w.T) {
		return nil, errors.New("encoded tasks: token ids do not match the tasks")
	}
	for i := range w.T {
		var err error
		if w.T[i].Variables, err = untagMap(w.T[i].Variables); err != nil {
			return nil, err
		}
		w.T[i].TokenID = w.Tokens[i]
	}
	return w.T, nil
}
