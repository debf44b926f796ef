package bpmn

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// Defaults of Options.
const (
	MaxBytesDefault int64 = 10 << 20 // 10 MiB
	MaxDepthDefault       = 200
	MaxValueDefault       = 64 << 10 // 64 KiB: an attribute's value, an element's text
)

// Options limit what Parse accepts. The zero value means the defaults.
type Options struct {
	MaxBytes int64 // largest document accepted, in bytes
	MaxDepth int   // deepest element nesting accepted
	MaxValue int   // longest attribute value or element text, in bytes (scripts and forms included)
	// MaxElements caps the elements kept (of the namespaces read); default
	// MaxBytes/32. MaxAttributes caps the attributes of the whole document;
	// default 4 x MaxElements.
	MaxElements   int
	MaxAttributes int
}

// WithDefaults fills what is unset.
func (o Options) WithDefaults() Options {
	o.MaxBytes = cmp.Or(o.MaxBytes, MaxBytesDefault)
	o.MaxDepth = cmp.Or(o.MaxDepth, MaxDepthDefault)
	o.MaxValue = cmp.Or(o.MaxValue, MaxValueDefault)
	o.MaxElements = cmp.Or(o.MaxElements, int(o.MaxBytes/bytesPerElement))
	o.MaxAttributes = cmp.Or(o.MaxAttributes, 4*o.MaxElements)
	return o
}

func (o Options) validate() error {
	if o.MaxBytes < 0 {
		return fmt.Errorf("bpmn: MaxBytes is %d: use 0 for the default or a positive size", o.MaxBytes)
	}
	if o.MaxDepth < 0 {
		return fmt.Errorf("bpmn: MaxDepth is %d: use 0 for the default or a positive depth", o.MaxDepth)
	}
	if o.MaxValue < 0 {
		return fmt.Errorf("bpmn: MaxValue is %d: use 0 for the default or a positive size", o.MaxValue)
	}
	if o.MaxElements < 0 || o.MaxAttributes < 0 {
		return fmt.Errorf("bpmn: MaxElements is %d and MaxAttributes %d: use 0 for the defaults or positive counts", o.MaxElements, o.MaxAttributes)
	}
	return nil
}

// Errors that stop reading a document. They come wrapped with where and how
// much; test them with errors.Is.
var (
	ErrDOCTYPE   = errors.New("DOCTYPE is not allowed: remove the <!DOCTYPE ...> declaration (entities are never expanded)")
	ErrDirective = errors.New("XML directives are not allowed")
	ErrTooLarge  = errors.New("document too large")
	ErrTooDeep   = errors.New("elements nested too deeply")
	ErrNotBPMN   = errors.New("not a BPMN 2.0 document")
)

// SyntaxError is a document that cannot be read as XML, or that breaks one of
// the hardening rules, at a place in the input.
type SyntaxError struct {
	Line, Column int
	Err          error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("bpmn: line %d, column %d: %v", e.Line, e.Column, e.Err)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// Parse reads a BPMN 2.0 XML document into a linked definition.
//
// A document that cannot be read gives a nil definition and an error (a
// *SyntaxError with line and column where there is one). A document that can
// be read gives the definition and, when something in it is wrong or not
// supported, a model.Problems error listing all of it, each problem naming its
// element: callers may show the definition with its problems, but must not run it.
func Parse(data []byte, opts Options) (*model.Definition, error) {
	opts = opts.WithDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if int64(len(data)) > opts.MaxBytes {
		return nil, fmt.Errorf("bpmn: %w: %d bytes, the limit is %d", ErrTooLarge, len(data), opts.MaxBytes)
	}
	if err := prescanAttributes(data, opts.MaxValue); err != nil {
		return nil, err
	}
	return parse(bytes.NewReader(data), opts)
}

// ParseReader is Parse for a stream, e.g. a request body: it stops reading
// with ErrTooLarge as soon as more than MaxBytes arrive.
func ParseReader(r io.Reader, opts Options) (*model.Definition, error) {
	opts = opts.WithDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return parse(r, opts)
}

func parse(r io.Reader, opts Options) (*model.Definition, error) {
	root, err := readTree(&limitReader{r: r, left: opts.MaxBytes}, opts)
	if err != nil {
		return nil, err
	}
	if !root.is(nsBPMN, "definitions") {
		return nil, fmt.Errorf("bpmn: %w: the root element is {%s}%s, want definitions in namespace %s",
			ErrNotBPMN, root.name.Space, root.name.Local, nsBPMN)
	}
	c := newConverter()
	def := c.definitions(root)
	return def, c.probs.Err()
}

// bytesPerElement bounds how many elements are kept for a document of
// MaxBytes: real BPMN files spend 140 bytes or more per element kept, and the
// bound keeps a flood of tiny elements (<a/><a/>...) from growing the tree to
// many times the document's size.
const bytesPerElement = 32

// readTree reads the whole document into an element tree, enforcing the
// hardening rules as it goes so that a hostile document fails at the first
// offending token. Elements of namespaces the mapping never reads (diagram
// interchange, other vendors) are not kept; their depth still counts.
func readTree(r io.Reader, opts Options) (*element, error) {
	dec := xml.NewDecoder(r)
	dec.Strict = true // with no Entity map: only the five predefined entities exist
	dec.CharsetReader = charsetReader
	var (
		line, col int
		root      *element
		stack     []*element // nil for an element that is not kept
		kept      int
		attrs     int
	)
	// Errors the decoder finds are where it stopped; ours are where the
	// offending token starts.
	failed := func(err error) error {
		line, col := dec.InputPos()
		return &SyntaxError{Line: line, Column: col, Err: err}
	}
	failHere := func(err error) error { return &SyntaxError{Line: line, Column: col, Err: err} }
	for {
		line, col = dec.InputPos()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return nil, fmt.Errorf("bpmn: %w: the limit is %d bytes", ErrTooLarge, opts.MaxBytes)
			}
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				err = errors.New(se.Msg)
			}
			return nil, failed(err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			if d := strings.TrimSpace(string(t)); len(d) >= 7 && strings.EqualFold(d[:7], "DOCTYPE") {
				return nil, failHere(ErrDOCTYPE)
			}
			return nil, failHere(ErrDirective)
		case xml.StartElement:
			if root != nil && len(stack) == 0 {
				return nil, failHere(errors.New("a second root element: a document has exactly one"))
			}
			if len(stack) >= opts.MaxDepth {
				return nil, failHere(fmt.Errorf("%w: more than %d levels", ErrTooDeep, opts.MaxDepth))
			}
			if attrs += len(t.Attr); attrs > opts.MaxAttributes {
				return nil, failHere(fmt.Errorf("%w: more than %d attributes", ErrTooLarge, opts.MaxAttributes))
			}
			for _, a := range t.Attr {
				if len(a.Value) > opts.MaxValue {
					return nil, failHere(fmt.Errorf("%w: attribute %q of <%s id=%q> has %d bytes, the limit is %d: shorten it",
						ErrTooLarge, a.Name.Local, t.Name.Local, attrValue(t.Attr, "id"), len(a.Value), opts.MaxValue))
				}
			}
			var e *element
			switch {
			case root == nil:
				e = &element{name: t.Name, attrs: t.Attr, line: line}
				root = e
			case stack[len(stack)-1] != nil && isRead(t.Name.Space):
				if kept++; kept > opts.MaxElements {
					return nil, failHere(fmt.Errorf("%w: more than %d elements", ErrTooLarge, opts.MaxElements))
				}
				e = &element{name: t.Name, attrs: t.Attr, line: line}
				parent := stack[len(stack)-1]
				parent.children = append(parent.children, e)
			}
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1] // Strict: the decoder has checked it matches
		case xml.CharData:
			if len(stack) > 0 && stack[len(stack)-1] != nil {
				e := stack[len(stack)-1]
				if len(e.text)+len(t) > opts.MaxValue {
					return nil, failHere(fmt.Errorf("%w: the text of <%s id=%q> has more than %d bytes: shorten it",
						ErrTooLarge, e.name.Local, e.attr("", "id"), opts.MaxValue))
				}
				e.text = append(e.text, t...) // appending, not +=: many small tokens stay linear
			}
		}
	}
	if root == nil {
		return nil, failed(errors.New("no root element: the document is empty"))
	}
	return root, nil
}

// attrValue returns the value of an unqualified attribute, or "".
func attrValue(attrs []xml.Attr, name string) string {
	for _, a := range attrs {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// isRead reports whether the mapping reads elements of namespace space.
func isRead(space string) bool {
	switch space {
	case nsBPMN, nsZeebe, nsCamunda, nsWF:
		return true
	}
	return false
}

// limitReader fails with ErrTooLarge once more than left bytes are read,
// where io.LimitReader would end quietly and leave a truncated document.
type limitReader struct {
	r    io.Reader
	left int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, ErrTooLarge
	}
	return n, err
}

// charsetReader lets documents declare the encodings Modeler tools still
// write besides UTF-8. Latin-1 maps each byte to the code point of the same
// value.
func charsetReader(label string, r io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1":
		return &latin1Reader{r: r}, nil
	case "us-ascii", "ascii":
		return r, nil
	}
	return nil, fmt.Errorf("encoding %q is not supported: save the file as UTF-8", label)
}

type latin1Reader struct {
	r   io.Reader
	buf []byte // encoded bytes not yet returned
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	if len(l.buf) == 0 {
		raw := make([]byte, max(len(p)/2, 1))
		n, err := l.r.Read(raw)
		for _, b := range raw[:n] {
			if b < 0x80 {
				l.buf = append(l.buf, b)
			} else {
				l.buf = append(l.buf, 0xC0|b>>6, 0x80|b&0x3F)
			}
		}
		if n == 0 {
			return 0, err
		}
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}
