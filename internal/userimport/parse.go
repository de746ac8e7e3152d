package userimport

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kanri/kanri/internal/kanri"
)

// Limits of an import file. MaxRows is the largest maxUsers a tenant can
// have: a file never holds more users than a tenant can.
const (
	MaxFileBytes = 1 << 20
	MaxRows      = 10000
)

// The columns of an import file (docs/import-export.md). Username, e-mail
// and display name are required; status and roles are optional.
const (
	ColUsername    = "username"
	ColEmail       = "email"
	ColDisplayName = "displayName"
	ColStatus      = "status"
	ColRoles       = "roles"
)

// columns are the columns a file may have, required first.
var columns = []string{ColUsername, ColEmail, ColDisplayName, ColStatus, ColRoles}

// required are the columns a file must have.
var required = columns[:3]

// exported are the other columns of the users' export
// (internal/export): an import reads past them, so that an export can be
// imported again.
var exported = []string{"id", "createdAt", "updatedAt", "lastLoginAt", "lockedUntil", "twoFactorEnabled"}

// The statuses a row may set.
const (
	StatusActive   = "active"
	StatusInactive = "inactive"
)

// Row is one user of an import file, as written.
type Row struct {
	// Line is the row's line in the file (the header is line 1).
	Line        int
	Username    string
	Email       string
	DisplayName string
	Status      string // "", active or inactive
	Roles       string // service:role entries separated by ";"
	// Cells is set when the row has another number of cells than the
	// header: the row is refused.
	Cells int
}

// FileError is an import file that cannot be read, with the line it was
// refused at (0: the file as a whole) and what is wrong, a translation
// key (Message) whose arguments are Args.
type FileError struct {
	Line    int
	Message string
	Args    []any
}

func (e *FileError) Error() string { return "userimport: " + e.Message }

// fileErr returns the EINVALID error of a file refused for key.
func fileErr(line int, key string, args ...any) error {
	return kanri.Wrap(kanri.EINVALID, key, &FileError{Line: line, Message: key, Args: args})
}

// utf8BOM is the byte order mark spreadsheet programs write before UTF-8.
var utf8BOM = []byte("\xEF\xBB\xBF")

// Parse reads an import file: UTF-8 CSV (a byte order mark is skipped)
// with a header row naming the columns in any order, at most MaxFileBytes
// and MaxRows. A file that cannot be read as such is EINVALID with a
// *FileError; a row's own problems are the plan's.
func Parse(data []byte) ([]Row, error) {
	switch {
	case len(data) > MaxFileBytes:
		return nil, fileErr(0, "imports.error.too_large")
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return nil, fileErr(0, "imports.error.spreadsheet")
	case bytes.HasPrefix(data, []byte("\xFF\xFE")), bytes.HasPrefix(data, []byte("\xFE\xFF")):
		return nil, fileErr(0, "imports.error.encoding")
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if !utf8.Valid(data) {
		return nil, fileErr(lineOfInvalid(data), "imports.error.encoding")
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, fileErr(0, "imports.error.empty")
	}
	if err != nil {
		return nil, csvErr(err)
	}
	index, err := readHeader(header)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvErr(err)
		}
		if blank(rec) {
			continue
		}
		if len(rows) == MaxRows {
			return nil, fileErr(0, "imports.error.too_many_rows", MaxRows)
		}
		line, _ := r.FieldPos(0)
		rows = append(rows, rowOf(rec, index, line, len(header)))
	}
	if len(rows) == 0 {
		return nil, fileErr(0, "imports.error.no_rows")
	}
	return rows, nil
}

// readHeader returns the position of each column in the header: the
// required ones must be there, none twice, and no other.
func readHeader(header []string) (map[string]int, error) {
	index := map[string]int{}
	for i, h := range header {
		name, ok := column(h)
		if !ok && slices.ContainsFunc(exported, func(c string) bool { return strings.EqualFold(strings.TrimSpace(h), c) }) {
			continue
		}
		if !ok {
			return nil, fileErr(1, "imports.error.unknown_column", strings.TrimSpace(h))
		}
		if _, dup := index[name]; dup {
			return nil, fileErr(1, "imports.error.duplicate_column", name)
		}
		index[name] = i
	}
	for _, name := range required {
		if _, ok := index[name]; !ok {
			return nil, fileErr(1, "imports.error.missing_column", name)
		}
	}
	return index, nil
}

// column returns the column a header cell names, without regard to case
// or surrounding spaces.
func column(h string) (string, bool) {
	h = strings.TrimSpace(h)
	for _, c := range columns {
		if strings.EqualFold(h, c) {
			return c, true
		}
	}
	return "", false
}

// rowOf returns the row of record rec.
func rowOf(rec []string, index map[string]int, line, width int) Row {
	cell := func(name string) string {
		if i, ok := index[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	row := Row{
		Line: line, Username: cell(ColUsername), Email: cell(ColEmail), DisplayName: cell(ColDisplayName),
		Status: strings.ToLower(strings.TrimSpace(cell(ColStatus))), Roles: strings.TrimSpace(cell(ColRoles)),
	}
	if len(rec) != width {
		row.Cells = len(rec)
	}
	return row
}

// blank reports whether a record has no text (a line of commas, as a
// spreadsheet writes for an empty row).
func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// csvErr returns the error of a file that is not CSV, at its line.
func csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fileErr(pe.Line, "imports.error.csv")
	}
	return fileErr(0, "imports.error.csv")
}

// lineOfInvalid returns the line of the first byte that is not UTF-8.
func lineOfInvalid(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		data = data[size:]
	}
	return line
}
