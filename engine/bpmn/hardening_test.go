package bpmn_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/bpmn"
)

func testdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

func TestParseHardening(t *testing.T) {
	t.Parallel()
	nested := func(depth int) []byte {
		return []byte(`<definitions xmlns="` + bpmnNS + `">` + strings.Repeat("<a>", depth) + strings.Repeat("</a>", depth) + `</definitions>`)
	}
	tests := []struct {
		name   string
		data   []byte
		opts   bpmn.Options
		is     error
		want   string
		reader bool // ParseReader instead of Parse
	}{
		{name: "billion laughs", data: testdata(t, "billion-laughs.bpmn"), is: bpmn.ErrDOCTYPE, want: "line 2, column"},
		{name: "external entity", data: testdata(t, "xxe.bpmn"), is: bpmn.ErrDOCTYPE, want: "DOCTYPE is not allowed"},
		{name: "lower-case doctype", data: []byte(`<!doctype x><definitions/>`), is: bpmn.ErrDOCTYPE},
		{name: "entity directive", data: []byte(`<!ENTITY x "y"><definitions/>`), is: bpmn.ErrDirective},
		{
			name: "undeclared entity",
			data: []byte(`<definitions xmlns="` + bpmnNS + `"><process id="&x;"/></definitions>`),
			want: "line 1, column",
		},
		{name: "too deep", data: nested(250), is: bpmn.ErrTooDeep, want: "more than 200 levels"},
		{name: "deeper than the option", data: nested(5), opts: bpmn.Options{MaxDepth: 4}, is: bpmn.ErrTooDeep},
		{name: "very deep", data: nested(1 << 20), is: bpmn.ErrTooDeep},
		{name: "too large", data: nested(10), opts: bpmn.Options{MaxBytes: 64}, is: bpmn.ErrTooLarge, want: "the limit is 64"},
		{name: "too large stream", data: nested(10), opts: bpmn.Options{MaxBytes: 64}, is: bpmn.ErrTooLarge, reader: true},
		{
			name: "element flood",
			data: []byte(`<definitions xmlns="` + bpmnNS + `"><process id="p">` + strings.Repeat("<task/>", 9000) + `</process></definitions>`),
			opts: bpmn.Options{MaxBytes: 64 << 10}, is: bpmn.ErrTooLarge, want: "more than 2048 elements",
		},
		{name: "not BPMN", data: []byte(`<html/>`), is: bpmn.ErrNotBPMN, want: "the root element is {}html"},
		{name: "empty", data: nil, want: "no root element"},
		{name: "two roots", data: []byte(`<definitions xmlns="` + bpmnNS + `"/><definitions/>`), want: "a second root element"},
		{name: "unknown encoding", data: []byte(`<?xml version="1.0" encoding="EBCDIC"?><definitions/>`), want: `encoding "EBCDIC" is not supported`},
		{name: "negative size", data: nested(1), opts: bpmn.Options{MaxBytes: -1}, want: "MaxBytes is -1"},
		{name: "negative depth", data: nested(1), opts: bpmn.Options{MaxDepth: -1}, want: "MaxDepth is -1"},
		{name: "negative value", data: nested(1), opts: bpmn.Options{MaxValue: -1}, want: "MaxValue is -1"},
		{
			name: "9 MiB attribute",
			data: []byte(`<definitions xmlns="` + bpmnNS + `"><process id="p" name="` + strings.Repeat("x", 9<<20) + `"/></definitions>`),
			is:   bpmn.ErrTooLarge, want: `attribute "name" of <process id="p"> has 9437184 bytes, the limit is 65536`,
		},
		{
			name: "long text",
			data: []byte(`<definitions xmlns="` + bpmnNS + `"><process id="p"><documentation>` + strings.Repeat("y", 70<<10) + `</documentation></process></definitions>`),
			is:   bpmn.ErrTooLarge, want: `the text of <documentation id=""> has more than 65536 bytes`,
		},
		{
			name: "attribute flood",
			data: []byte(`<definitions xmlns="` + bpmnNS + `"><process id="p" ` + attrs(50) + `/></definitions>`),
			opts: bpmn.Options{MaxAttributes: 40}, is: bpmn.ErrTooLarge, want: "more than 40 attributes",
		},
		{
			name: "elements over the option",
			data: []byte(`<definitions xmlns="` + bpmnNS + `"><process id="p">` + strings.Repeat("<task/>", 11) + `</process></definitions>`),
			opts: bpmn.Options{MaxElements: 10}, is: bpmn.ErrTooLarge, want: "more than 10 elements",
		},
		{name: "value over the option", data: []byte(`<definitions xmlns="` + bpmnNS + `" id="abcdefghij"/>`), opts: bpmn.Options{MaxValue: 8}, is: bpmn.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var err error
			if tt.reader {
				_, err = bpmn.ParseReader(bytes.NewReader(tt.data), tt.opts)
			} else {
				_, err = bpmn.Parse(tt.data, tt.opts)
			}
			require.Error(t, err)
			if tt.is != nil {
				require.ErrorIs(t, err, tt.is)
			}
			require.Contains(t, err.Error(), tt.want)
			t.Log(err)
		})
	}
}

// attrs returns n distinct attributes.
func attrs(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, ` a%d="x"`, i)
	}
	return b.String()
}

func TestParseReaderStopsReadingAtTheLimit(t *testing.T) {
	t.Parallel()
	endless := io.MultiReader(strings.NewReader(`<definitions xmlns="`+bpmnNS+`"><documentation>`), zeros{})
	_, err := bpmn.ParseReader(endless, bpmn.Options{MaxBytes: 1 << 20})
	require.ErrorIs(t, err, bpmn.ErrTooLarge)
}

// zeros is an endless stream of "0".
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

func TestParseSyntaxErrorSaysWhere(t *testing.T) {
	t.Parallel()
	_, err := bpmn.Parse([]byte("<definitions xmlns=\""+bpmnNS+"\">\n  <process id=\"p\">\n    <task id=\"t\">\n  </process>\n</definitions>"), bpmn.Options{})
	var se *bpmn.SyntaxError
	require.ErrorAs(t, err, &se)
	require.Equal(t, 4, se.Line)
	require.Positive(t, se.Column)
	require.Contains(t, err.Error(), "line 4, column")
	require.Contains(t, err.Error(), "element <task> closed by </process>")
}

func TestParseLatin1(t *testing.T) {
	t.Parallel()
	doc := []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<definitions xmlns=\"" + bpmnNS + "\">" +
		"<process id=\"p\"><startEvent id=\"s\" name=\"Stra\xdfe \xe0 droite\"/></process></definitions>")
	def, err := bpmn.Parse(doc, bpmn.Options{})
	require.NoError(t, err)
	require.Equal(t, "Straße à droite", def.Main().Node("s").Name)
}

func TestOptionsWithDefaults(t *testing.T) {
	t.Parallel()
	require.Equal(t, bpmn.Options{
		MaxBytes: bpmn.MaxBytesDefault, MaxDepth: bpmn.MaxDepthDefault, MaxValue: bpmn.MaxValueDefault,
		MaxElements: int(bpmn.MaxBytesDefault / 32), MaxAttributes: int(bpmn.MaxBytesDefault / 8),
	}, bpmn.Options{}.WithDefaults())
	require.Equal(t, bpmn.Options{MaxBytes: 5, MaxDepth: 6, MaxValue: 7}, bpmn.Options{MaxBytes: 5, MaxDepth: 6, MaxValue: 7}.WithDefaults())
	require.Equal(t, int64(10<<20), bpmn.MaxBytesDefault)
}

func TestSyntaxErrorUnwraps(t *testing.T) {
	t.Parallel()
	err := error(&bpmn.SyntaxError{Line: 1, Column: 2, Err: bpmn.ErrDOCTYPE})
	require.True(t, errors.Is(err, bpmn.ErrDOCTYPE))
	require.Equal(t, "bpmn: line 1, column 2: "+bpmn.ErrDOCTYPE.Error(), err.Error())
}

// TestPrescanFollowsMarkup: the early check of attribute lengths reads only
// values inside tags: quotes in text, comments and CDATA are not values.
func TestPrescanFollowsMarkup(t *testing.T) {
	t.Parallel()
	doc := `<definitions xmlns="` + bpmnNS + `"><!-- a "comment" that is long enough --><process id="p" name='short'>` +
		`<documentation>it's text, and "quotes" in text are not attributes; nor 'these'</documentation>` +
		`<scriptTask id="s"><script><![CDATA[var a = "a long string in a script"; var b = 'x']]></script></scriptTask>` +
		`</process></definitions>`
	_, err := bpmn.Parse([]byte(doc), bpmn.Options{MaxValue: 80})
	require.NotErrorIs(t, err, bpmn.ErrTooLarge, "a quote in text, a comment or CDATA was read as an attribute")
	_, err = bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`">`+"\n"+`  <bpmn:process xmlns:bpmn="`+bpmnNS+`" id="p2" name="`+strings.Repeat("n", 81)+`"/></definitions>`), bpmn.Options{MaxValue: 80})
	require.ErrorIs(t, err, bpmn.ErrTooLarge)
	require.Contains(t, err.Error(), `line 2, column 3: document too large: attribute "name" of <process id="p2"> has 81 bytes, the limit is 80`)
}
