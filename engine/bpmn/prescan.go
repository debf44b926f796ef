package bpmn

import (
	"bytes"
	"fmt"
)

// prescanAttributes refuses a document with an attribute value longer than
// max before the XML decoder reads it: the decoder materialises a value
// whole (buffer, then string) before readTree can look at its length, which
// cost tens of MB for one 9 MiB attribute. It follows markup only as far as
// it must (tags, comments, CDATA, processing instructions) and leaves
// everything else, including a DOCTYPE, to the decoder; its answer is the
// decoder's, with the same element, attribute and position.
func prescanAttributes(data []byte, limit int) error {
	for i := 0; i < len(data); {
		lt := bytes.IndexByte(data[i:], '<')
		if lt < 0 {
			return nil
		}
		i += lt
		rest := data[i:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			i = skipPast(data, i, "-->")
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			i = skipPast(data, i, "]]>")
		case bytes.HasPrefix(rest, []byte("<?")):
			i = skipPast(data, i, "?>")
		case bytes.HasPrefix(rest, []byte("<!")):
			return nil // a directive: the decoder refuses it
		default:
			end, err := scanTag(data, i, limit)
			if err != nil {
				return err
			}
			i = end
		}
	}
	return nil
}

func skipPast(data []byte, i int, end string) int {
	j := bytes.Index(data[i:], []byte(end))
	if j < 0 {
		return len(data)
	}
	return i + j + len(end)
}

// scanTag checks the attribute values of the tag starting at data[start]
// and returns the offset after it.
func scanTag(data []byte, start, limit int) (int, error) {
	for i := start + 1; i < len(data); i++ {
		switch c := data[i]; c {
		case '>':
			return i + 1, nil
		case '"', '\'':
			j := bytes.IndexByte(data[i+1:], c)
			if j < 0 {
				return len(data), nil // unterminated: the decoder says where
			}
			if j > limit {
				return 0, tooLongAttribute(data, start, i, j, limit)
			}
			i += j + 1
		}
	}
	return len(data), nil
}

// tooLongAttribute is readTree's error for the value of n bytes opening at
// data[quote] in the tag at data[start].
func tooLongAttribute(data []byte, start, quote, n, limit int) error {
	tag := data[start+1 : quote]
	name := tag[:bytes.IndexAny(append(tag[:len(tag):len(tag)], ' '), " \t\r\n/>")]
	if k := bytes.IndexByte(name, ':'); k >= 0 {
		name = name[k+1:]
	}
	attr := bytes.TrimRight(tag, " \t\r\n=")
	attr = attr[bytes.LastIndexAny(attr, " \t\r\n")+1:]
	if k := bytes.IndexByte(attr, ':'); k >= 0 {
		attr = attr[k+1:]
	}
	line := 1 + bytes.Count(data[:start], []byte("\n"))
	col := 1 + start - (bytes.LastIndexByte(data[:start], '\n') + 1)
	return &SyntaxError{Line: line, Column: col, Err: fmt.Errorf("%w: attribute %q of <%s id=%q> has %d bytes, the limit is %d: shorten it",
		ErrTooLarge, attr, name, tagID(data, start), n, limit)}
}

// tagID is the value of the id attribute of the tag at data[start], if it
// is short and comes before any long value.
func tagID(data []byte, start int) string {
	end := bytes.IndexByte(data[start:], '>')
	if end < 0 {
		end = len(data) - start
	}
	tag := data[start : start+min(end, 4096)]
	k := bytes.Index(tag, []byte(` id=`))
	if k < 0 || k+5 >= len(tag) {
		return ""
	}
	q := tag[k+4]
	v := tag[k+5:]
	if e := bytes.IndexByte(v, q); e >= 0 {
		return string(v[:e])
	}
	return ""
}
