package mongostore

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/workflowpp/wfpp/engine"
)

// normalize turns a value decoded from BSON into the JSON-like shapes the
// engine works with (as memstore hands them back): documents become
// map[string]any, arrays []any, int32 int64, dates time.Time, binary []byte.
// int64 and float64 stay as they are, as the script package exports them.
func normalize(v any) any {
	switch v := v.(type) {
	case bson.D:
		m := make(map[string]any, len(v))
		for _, e := range v {
			m[e.Key] = normalize(e.Value)
		}
		return m
	case bson.M:
		return normalizeMap(map[string]any(v))
	case map[string]any:
		return normalizeMap(v)
	case bson.A:
		return normalizeSlice([]any(v))
	case []any:
		return normalizeSlice(v)
	case int32:
		return int64(v)
	case bson.DateTime:
		return v.Time().UTC()
	case bson.Binary:
		return v.Data
	case bson.Null, bson.Undefined:
		return nil
	}
	return v
}

func normalizeMap(m map[string]any) map[string]any {
	for k, v := range m {
		m[k] = normalize(v)
	}
	return m
}

func normalizeSlice(s []any) []any {
	for i, v := range s {
		s[i] = normalize(v)
	}
	return s
}

func normalizeSnapshot(s *engine.Snapshot) {
	s.Variables = normalizeMap(s.Variables)
	for i := range s.Tokens {
		s.Tokens[i].Local = normalizeMap(s.Tokens[i].Local)
	}
	for i := range s.Tasks {
		s.Tasks[i].Variables = normalizeMap(s.Tasks[i].Variables)
	}
	for i := range s.Pending {
		s.Pending[i].Detail = normalizeMap(s.Pending[i].Detail)
	}
}
