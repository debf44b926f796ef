package embedded

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// opMsgParts is an OP_MSG split into its parts (wire protocol: a header,
// flag bits, one body section of kind 0 and document sequences of kind 1).
type opMsgParts struct {
	header    []byte // requestID and responseTo are kept as they came
	flags     uint32
	body      bsoncore.Document
	sequences []docSequence
}

type docSequence struct {
	id   string
	docs []bsoncore.Document
}

// parseMsg splits msg; ok is false for any other opcode and for a message
// that does not parse.
func parseMsg(msg []byte) (m opMsgParts, ok bool) {
	if len(msg) < msgHeaderLen+5 || binary.LittleEndian.Uint32(msg[12:]) != opMsg {
		return m, false
	}
	m.header, m.flags = msg[:msgHeaderLen], binary.LittleEndian.Uint32(msg[msgHeaderLen:])
	end := len(msg)
	if m.flags&flagChecksumSent != 0 {
		end -= 4
	}
	for i := msgHeaderLen + 4; i < end; {
		kind := msg[i]
		i++
		if i+4 > end {
			return m, false
		}
		size := int(binary.LittleEndian.Uint32(msg[i:]))
		if size < 5 || i+size > end {
			return m, false
		}
		section := msg[i : i+size]
		i += size
		if kind == 0 {
			m.body = section
			continue
		}
		nul := bytes.IndexByte(section[4:], 0)
		if nul < 0 {
			return m, false
		}
		seq, rest := docSequence{id: string(section[4 : 4+nul])}, section[5+nul:]
		for len(rest) > 0 {
			doc, more, ok := bsoncore.ReadDocument(rest)
			if !ok {
				return m, false
			}
			seq.docs, rest = append(seq.docs, doc), more
		}
		m.sequences = append(m.sequences, seq)
	}
	return m, m.body != nil
}

// statements returns the documents of the command's array field (such as
// "updates"), from the body or from the document sequence of that name;
// inBody says which.
func (m opMsgParts) statements(field string) (docs []bsoncore.Document, inBody bool) {
	for _, s := range m.sequences {
		if s.id == field {
			return s.docs, false
		}
	}
	arr, ok := m.body.Lookup(field).ArrayOK()
	if !ok {
		return nil, false
	}
	vals, _ := arr.Values()
	for _, v := range vals {
		if doc, ok := v.DocumentOK(); ok {
			docs = append(docs, doc)
		}
	}
	return docs, true
}

// build assembles the message again with the command's statements
// replaced, where statements found them. The checksum is not kept: build
// serves messages without one.
func (m opMsgParts) build(stmts []bsoncore.Document, inBody bool) []byte {
	// Only "updates" is ever replaced (narrowGuards).
	const field = "updates"
	body := m.body
	if inBody {
		elems, _ := m.body.Elements()
		idx, out := bsoncore.AppendDocumentStart(nil)
		for _, e := range elems {
			if e.Key() != field {
				out = append(out, e...)
				continue
			}
			aidx, arr := bsoncore.AppendArrayElementStart(out, field)
			for i, s := range stmts {
				arr = bsoncore.AppendDocumentElement(arr, strconv.Itoa(i), s)
			}
			out, _ = bsoncore.AppendArrayEnd(arr, aidx)
		}
		body, _ = bsoncore.AppendDocumentEnd(out, idx)
	}
	out := append([]byte(nil), m.header...)
	out = binary.LittleEndian.AppendUint32(out, m.flags&^flagChecksumSent)
	out = append(append(out, 0), body...)
	for _, s := range m.sequences {
		docs := s.docs
		if s.id == field && !inBody {
			docs = stmts
		}
		start := len(out)
		out = append(out, 1, 0, 0, 0, 0)
		out = append(append(out, s.id...), 0)
		for _, d := range docs {
			out = append(out, d...)
		}
		binary.LittleEndian.PutUint32(out[start+1:], uint32(len(out)-start-1))
	}
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	return out
}
