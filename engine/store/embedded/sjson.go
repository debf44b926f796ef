package embedded

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// appendSJSON appends doc as FerretDB v1.24 stores a document in SQLite:
// its "sjson", the values as JSON with their BSON types in a schema under
// "$s" (FerretDB's internal/handler/sjson, which cannot be imported).
//
// ok is false for any document FerretDB would change, refuse or encode in a
// way this function does not reproduce byte for byte: a top-level document
// whose first field is not an _id string or ObjectID, field names that are
// empty, start with $, contain a dot, repeat or need escaping in JSON,
// nested arrays, doubles that are NaN, infinite or -0, strings that are not
// UTF-8, and BSON types FerretDB does not store. The caller then leaves the
// write to FerretDB. TestSJSONMatchesFerretDB checks the output byte for
// byte against what FerretDB writes.
func appendSJSON(dst []byte, doc bsoncore.Document) ([]byte, bool) {
	first, err := doc.IndexErr(0)
	if err != nil || first.Key() != "_id" || !idType(first.Value().Type) {
		return dst, false
	}
	dst = append(dst, `{"$s":`...)
	dst, ok := appendSchema(dst, doc)
	if !ok {
		return dst, false
	}
	elems, _ := doc.Elements() // appendSchema has read them all
	for _, e := range elems {
		dst = append(dst, ',', '"')
		dst = append(dst, e.Key()...)
		dst = append(dst, '"', ':')
		if dst, ok = appendValue(dst, e.Value()); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// idType says whether the direct path takes an _id of type t: the types of
// the store's ids, which FerretDB's _id index finds as they are.
func idType(t bsoncore.Type) bool { return t == bsoncore.TypeString || t == bsoncore.TypeObjectID }

// appendSchema appends the schema of a document: {"p":{name: type, ...},
// "$k":[names in order]}, or {} for an empty one.
func appendSchema(dst []byte, doc bsoncore.Document) ([]byte, bool) {
	elems, err := doc.Elements()
	if err != nil || !plainKeys(elems) {
		return dst, false
	}
	if len(elems) == 0 {
		return append(dst, '{', '}'), true
	}
	dst = append(dst, `{"p":{`...)
	for i, e := range elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, e.Key()...)
		dst = append(dst, '"', ':')
		var ok bool
		if dst, ok = appendType(dst, e.Value()); !ok {
			return dst, false
		}
	}
	dst = append(dst, `},"$k":[`...)
	for i, e := range elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, e.Key()...)
		dst = append(dst, '"')
	}
	return append(dst, ']', '}'), true
}

// appendType appends the schema entry of one value.
func appendType(dst []byte, v bsoncore.Value) ([]byte, bool) {
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		dst = append(dst, `{"t":"object","$s":`...)
		dst, ok := appendSchema(dst, v.Document())
		return append(dst, '}'), ok
	case bsoncore.TypeArray:
		vals, err := v.Array().Values()
		if err != nil {
			return dst, false
		}
		dst = append(dst, `{"t":"array","i":[`...)
		for i, item := range vals {
			if item.Type == bsoncore.TypeArray {
				return dst, false // FerretDB refuses nested arrays
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendType(dst, item); !ok {
				return dst, false
			}
		}
		return append(dst, ']', '}'), true
	case bsoncore.TypeBinary:
		subtype, _ := v.Binary()
		if subtype == 0x02 { // the old binary subtype: FerretDB reads it otherwise
			return dst, false
		}
		dst = append(dst, `{"t":"binData","s":`...)
		dst = strconv.AppendUint(dst, uint64(subtype), 10)
		return append(dst, '}'), true
	case bsoncore.TypeRegex:
		_, options := v.Regex()
		dst = append(dst, `{"t":"regex","o":`...)
		dst, ok := appendString(dst, options)
		return append(dst, '}'), ok
	}
	name, ok := scalarTypes[v.Type]
	if !ok {
		return dst, false
	}
	return append(dst, name...), true
}

// scalarTypes are the schema entries of the types without parameters.
var scalarTypes = map[bsoncore.Type]string{
	bsoncore.TypeDouble:    `{"t":"double"}`,
	bsoncore.TypeString:    `{"t":"string"}`,
	bsoncore.TypeObjectID:  `{"t":"objectId"}`,
	bsoncore.TypeBoolean:   `{"t":"bool"}`,
	bsoncore.TypeDateTime:  `{"t":"date"}`,
	bsoncore.TypeNull:      `{"t":"null"}`,
	bsoncore.TypeInt32:     `{"t":"int"}`,
	bsoncore.TypeTimestamp: `{"t":"timestamp"}`,
	bsoncore.TypeInt64:     `{"t":"long"}`,
}

// appendValue appends one value as JSON, the way FerretDB's sjson types
// marshal it.
func appendValue(dst []byte, v bsoncore.Value) ([]byte, bool) {
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		elems, err := v.Document().Elements()
		if err != nil {
			return dst, false
		}
		dst = append(dst, '{')
		for i, e := range elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '"')
			dst = append(dst, e.Key()...)
			dst = append(dst, '"', ':')
			var ok bool
			if dst, ok = appendValue(dst, e.Value()); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	case bsoncore.TypeArray:
		vals, err := v.Array().Values()
		if err != nil {
			return dst, false
		}
		dst = append(dst, '[')
		for i, item := range vals {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendValue(dst, item); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case bsoncore.TypeDouble:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) || (f == 0 && math.Signbit(f)) {
			return dst, false // FerretDB refuses, or rewrites -0 to 0
		}
		b, err := json.Marshal(f)
		return append(dst, b...), err == nil
	case bsoncore.TypeString:
		return appendString(dst, v.StringValue())
	case bsoncore.TypeBinary:
		_, data := v.Binary()
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, data)
		return append(dst, '"'), true
	case bsoncore.TypeObjectID:
		id := v.ObjectID()
		dst = append(dst, '"')
		dst = hex.AppendEncode(dst, id[:])
		return append(dst, '"'), true
	case bsoncore.TypeBoolean:
		return strconv.AppendBool(dst, v.Boolean()), true
	case bsoncore.TypeDateTime:
		return strconv.AppendInt(dst, v.DateTime(), 10), true
	case bsoncore.TypeNull:
		return append(dst, "null"...), true
	case bsoncore.TypeRegex:
		pattern, _ := v.Regex()
		return appendString(dst, pattern)
	case bsoncore.TypeInt32:
		return strconv.AppendInt(dst, int64(v.Int32()), 10), true
	case bsoncore.TypeTimestamp:
		return strconv.AppendUint(dst, binary.LittleEndian.Uint64(v.Data), 10), true
	case bsoncore.TypeInt64:
		return strconv.AppendInt(dst, v.Int64(), 10), true
	}
	return dst, false
}

// appendString appends s as encoding/json quotes it (HTML characters
// escaped), which is how FerretDB writes strings. Plain ASCII is copied;
// anything else goes through encoding/json itself.
func appendString(dst []byte, s string) ([]byte, bool) {
	if !utf8.ValidString(s) {
		return dst, false
	}
	for i := 0; i < len(s); i++ {
		if !plainByte(s[i]) {
			b, err := json.Marshal(s)
			return append(dst, b...), err == nil
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), true
}

// plainByte is an ASCII character encoding/json writes as it is.
func plainByte(c byte) bool {
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}

// plainKeys says whether every field name is one FerretDB accepts and that
// JSON needs no escaping for (FerretDB writes top-level names unescaped),
// with no name twice.
func plainKeys(elems []bsoncore.Element) bool {
	var seen map[string]bool // for long documents; short ones compare names
	if len(elems) > 16 {
		seen = make(map[string]bool, len(elems))
	}
	for i, e := range elems {
		key := e.Key()
		if key == "" || key[0] == '$' {
			return false
		}
		for j := 0; j < len(key); j++ {
			if !plainByte(key[j]) || key[j] == '.' {
				return false
			}
		}
		if seen != nil {
			if seen[key] {
				return false
			}
			seen[key] = true
			continue
		}
		for _, before := range elems[:i] {
			if before.Key() == key {
				return false
			}
		}
	}
	return true
}
