package userimport_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/userimport"
)

// TestParse reads files as spreadsheets write them and refuses those it
// cannot read, at their line.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string
		rows    []userimport.Row
		errKey  string
		errLine int
	}{
		{
			name: "with a byte order mark, columns in any order and any case",
			file: "\xEF\xBB\xBFEmail,USERNAME,displayName\r\nann@x.test,ann,Ann\r\n",
			rows: []userimport.Row{{Line: 2, Username: "ann", Email: "ann@x.test", DisplayName: "Ann"}},
		},
		{
			name: "optional columns, a quoted cell with a comma, a blank line skipped",
			file: "username,email,displayName,status,roles\nben,ben@x.test,\"Ben, Jr.\",Inactive,file-service:member\n,,,,\n",
			rows: []userimport.Row{{Line: 2, Username: "ben", Email: "ben@x.test", DisplayName: "Ben, Jr.", Status: "inactive", Roles: "file-service:member"}},
		},
		{
			name: "a row with too few cells is kept, to be refused",
			file: "username,email,displayName\ncid,cid@x.test\n",
			rows: []userimport.Row{{Line: 2, Username: "cid", Email: "cid@x.test", Cells: 2}},
		},
		{
			name: "the columns of the users' export (ignored)",
			file: "username,email,displayName,status,id,createdAt,updatedAt,lastLoginAt,lockedUntil,twoFactorEnabled\ndan,dan@x.test,Dan,active,user_1,,,,,false\n",
			rows: []userimport.Row{{Line: 2, Username: "dan", Email: "dan@x.test", DisplayName: "Dan", Status: "active"}},
		},
		{name: "empty", file: "", errKey: "imports.error.empty"},
		{name: "a header only", file: "username,email,displayName\n", errKey: "imports.error.no_rows"},
		{name: "an unknown column", file: "username,e-mail,displayName\n", errKey: "imports.error.unknown_column", errLine: 1},
		{name: "a column twice", file: "username,email,displayName,Email\n", errKey: "imports.error.duplicate_column", errLine: 1},
		{name: "a column missing", file: "username,email\n", errKey: "imports.error.missing_column", errLine: 1},
		{name: "Latin-1", file: "username,email,displayName\nann,a@x.test,Ann\nren\xe9,r@x.test,R\n", errKey: "imports.error.encoding", errLine: 3},
		{name: "UTF-16", file: "\xFF\xFEu\x00s\x00", errKey: "imports.error.encoding"},
		{name: "an XLSX file", file: "PK\x03\x04...", errKey: "imports.error.spreadsheet"},
		{name: "a stray quote", file: "username,email,displayName\nann,\"a@x.test,Ann\n", errKey: "imports.error.csv", errLine: 2},
		{name: "too large", file: strings.Repeat("a", userimport.MaxFileBytes+1), errKey: "imports.error.too_large"},
		{name: "too many rows", file: "username,email,displayName\n" + strings.Repeat("u,u@x.test,U\n", userimport.MaxRows+1), errKey: "imports.error.too_many_rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := userimport.Parse([]byte(tc.file))
			var fe *userimport.FileError
			switch {
			case tc.errKey == "" && err != nil:
				t.Fatalf("got error %v, want rows", err)
			case tc.errKey != "" && !errors.As(err, &fe):
				t.Fatalf("got %v, want a file error %s", err, tc.errKey)
			case tc.errKey != "":
				if fe.Message != tc.errKey || fe.Line != tc.errLine {
					t.Errorf("got %s at line %d, want %s at line %d", fe.Message, fe.Line, tc.errKey, tc.errLine)
				}
				return
			}
			if len(rows) != len(tc.rows) {
				t.Fatalf("got %d rows %+v, want %+v", len(rows), rows, tc.rows)
			}
			for i := range rows {
				if rows[i] != tc.rows[i] {
					t.Errorf("row %d: got %+v, want %+v", i, rows[i], tc.rows[i])
				}
			}
		})
	}
}
