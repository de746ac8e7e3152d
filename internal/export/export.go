// Package export writes a tenant's lists (its users, their role
// assignments, its files' metadata and its audit log) as CSV or JSON
// files (docs/import-export.md). An export is streamed: it reads the
// store a page at a time, by continuation, and writes each page before it
// reads the next, so that neither the server nor the store holds more
// than a page of it.
package export

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kanri/kanri/internal/kanri"
)

// Format is the file format of an export.
type Format string

// The formats of an export.
const (
	CSV  Format = "csv"
	JSON Format = "json"
)

// ParseFormat returns the format a file extension names.
func ParseFormat(ext string) (Format, bool) {
	switch f := Format(strings.TrimPrefix(ext, ".")); f {
	case CSV, JSON:
		return f, true
	}
	return "", false
}

// ContentType is the media type of the format.
func (f Format) ContentType() string {
	if f == JSON {
		return "application/json; charset=utf-8"
	}
	return "text/csv; charset=utf-8"
}

// Column is one column of an export (a CSV column, a JSON object's
// member): its name and its value in an item. A value is a string, a
// *string, a bool, an int, an int64, a kanri.Time, a map or nil.
type Column[T any] struct {
	Name  string
	Value func(T) any
}

// Pager returns the page of items after continuation ("": the first),
// and the continuation of the next page ("": none).
type Pager[T any] func(ctx context.Context, continuation string) ([]T, string, error)

// flusher is what an http.ResponseWriter offers to send what is written.
type flusher interface{ Flush() }

// Stream writes every item of the pages in format f: CSV with a header
// row (cells that a spreadsheet would run as a formula start with a
// quote), or a JSON array of objects. It sends each page before it reads
// the next. An error after the first page leaves the file cut short: a
// JSON file then does not parse, and the CSV has fewer rows.
func Stream[T any](ctx context.Context, w io.Writer, f Format, cols []Column[T], pages Pager[T]) error {
	enc := newEncoder(w, f, cols)
	if err := enc.begin(); err != nil {
		return err
	}
	continuation := ""
	for {
		if err := ctx.Err(); err != nil {
			return err // the client left, or the server is stopping
		}
		items, next, err := pages(ctx, continuation)
		if err != nil {
			return err
		}
		for _, it := range items {
			if err := enc.item(it); err != nil {
				return err
			}
		}
		if err := enc.flush(); err != nil {
			return err
		}
		if fl, ok := w.(flusher); ok {
			fl.Flush()
		}
		if next == "" {
			return enc.end()
		}
		continuation = next
	}
}

// encoder writes items in a format.
type encoder[T any] struct {
	w     io.Writer
	f     Format
	cols  []Column[T]
	cw    *csv.Writer
	first bool
}

func newEncoder[T any](w io.Writer, f Format, cols []Column[T]) *encoder[T] {
	e := &encoder[T]{w: w, f: f, cols: cols, first: true}
	if f == CSV {
		e.cw = csv.NewWriter(w)
	}
	return e
}

func (e *encoder[T]) begin() error {
	if e.f == JSON {
		_, err := io.WriteString(e.w, "[")
		return err
	}
	names := make([]string, len(e.cols))
	for i, c := range e.cols {
		names[i] = c.Name
	}
	return e.cw.Write(names)
}

func (e *encoder[T]) item(it T) error {
	if e.f == CSV {
		row := make([]string, len(e.cols))
		for i, c := range e.cols {
			row[i] = Defuse(cell(c.Value(it)))
		}
		return e.cw.Write(row)
	}
	var b strings.Builder
	if !e.first {
		b.WriteString(",")
	}
	e.first = false
	b.WriteString("\n{")
	for i, c := range e.cols {
		if i > 0 {
			b.WriteString(",")
		}
		name, _ := json.Marshal(c.Name)
		value, err := json.Marshal(c.Value(it))
		if err != nil {
			return err
		}
		b.Write(name)
		b.WriteString(":")
		b.Write(value)
	}
	b.WriteString("}")
	_, err := io.WriteString(e.w, b.String())
	return err
}

func (e *encoder[T]) flush() error {
	if e.cw != nil {
		e.cw.Flush()
		return e.cw.Error()
	}
	return nil
}

func (e *encoder[T]) end() error {
	if e.f == JSON {
		_, err := io.WriteString(e.w, "\n]\n")
		return err
	}
	return e.flush()
}

// cell returns a value as a CSV cell. A value whose JSON is null (nil, a
// nil pointer or map, a zero kanri.Time) is an empty cell, as an empty
// cell is no value.
func cell(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case *string:
		if v == nil {
			return ""
		}
		return *v
	case kanri.Time:
		return v.String()
	case bool, int, int64:
		return fmt.Sprint(v)
	}
	b, _ := json.Marshal(v)
	if string(b) == "null" {
		return ""
	}
	return string(b)
}

// Defuse keeps spreadsheet programs from evaluating a cell (CSV
// injection): a cell that starts as a formula does starts with a quote.
func Defuse(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
