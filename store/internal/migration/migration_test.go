package migration

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestCheck(t *testing.T) {
	fsys := fstest.MapFS{
		"migrations/0001_init.sql":  {Data: []byte("CREATE TABLE a (x);\n")},
		"migrations/0002_more.sql":  {Data: []byte("CREATE TABLE b (y);\r\n")},
		"migrations/0003_later.sql": {Data: []byte("CREATE TABLE c (z);\n")},
		"migrations/README":         {Data: []byte("not a migration")},
	}
	files, err := Files(fsys, "migrations/*.sql")
	if err != nil || len(files) != 3 || files[0].Name != "migrations/0001_init.sql" {
		t.Fatalf("files = %+v, %v", files, err)
	}
	if files[1].Sum != Checksum([]byte("CREATE TABLE b (y);\n")) {
		t.Fatal("a \\r\\n line end changed the checksum")
	}
	sum := func(i int) string { return files[i].Sum }
	for _, tc := range []struct {
		name    string
		applied map[string]string
		record  []string
		err     string
	}{
		{"new database", map[string]string{}, nil, ""},
		{"all recorded", map[string]string{"migrations/0001_init.sql": sum(0), "migrations/0002_more.sql": sum(1)}, nil, ""},
		{"recorded before checksums", map[string]string{"migrations/0001_init.sql": "", "migrations/0002_more.sql": sum(1)},
			[]string{"migrations/0001_init.sql"}, ""},
		{"edited", map[string]string{"migrations/0001_init.sql": Checksum([]byte("CREATE TABLE a (x, w);\n"))}, nil,
			"migration migrations/0001_init.sql was changed after this database applied it"},
		{"renumbered", map[string]string{"migrations/0001_init.sql": sum(0), "migrations/0009_later.sql": sum(2)}, nil,
			"migration migrations/0009_later.sql, which this database applied, is shipped renamed as migrations/0003_later.sql"},
		{"unknown", map[string]string{"migrations/0001_init.sql": sum(0), "migrations/0099_newer.sql": "abc"}, nil,
			"this database applied migration migrations/0099_newer.sql, which this version does not ship"},
		{"unknown before checksums", map[string]string{"migrations/0007_gone.sql": ""}, nil,
			"this database applied migration migrations/0007_gone.sql, which this version does not ship"},
	} {
		record, err := Check(tc.applied, files)
		var names []string
		for _, f := range record {
			names = append(names, f.Name)
		}
		if strings.Join(names, ",") != strings.Join(tc.record, ",") {
			t.Errorf("%s: record %v, want %v", tc.name, names, tc.record)
		}
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
		}
	}
}
