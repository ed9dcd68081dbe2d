package e2e

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"
)

// nowhereAtRest fails the test when a needle (a secret, a token, a
// personal number) is found at rest: in any column of any table of any
// database on the suite's PostgreSQL cluster — kycflow's own, and the
// Temporal server's persistence and visibility, where workflow histories,
// inputs and search attributes live — or in the services' log. A value is
// looked for as text and as hex (how a bytea column reads), so a copy in
// a JSON document, an array or a protobuf blob is found as well.
func nowhereAtRest(t *testing.T, needles ...string) {
	t.Helper()
	admin, err := sqlx.Open("postgres", env.pg.DSN("postgres", "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var dbs []string
	if err := admin.Select(&dbs, `SELECT datname FROM pg_database WHERE NOT datistemplate AND datname <> 'postgres' ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	if len(dbs) < 2 {
		t.Fatalf("databases searched: %v (kycflow's and Temporal's expected)", dbs)
	}
	tables := 0
	for _, name := range dbs {
		db, err := sqlx.Open("postgres", env.pg.DSN("postgres", name))
		if err != nil {
			t.Fatal(err)
		}
		var rels []string
		if err := db.Select(&rels, `SELECT format('%I.%I', table_schema, table_name) FROM information_schema.tables
			WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`); err != nil {
			db.Close()
			t.Fatal(err)
		}
		for _, rel := range rels {
			tables++
			for _, n := range needles {
				var found int
				// The row as text holds every column, bytea as \x + hex.
				if err := db.Get(&found, `SELECT count(*) FROM `+rel+` r WHERE strpos(r::text, $1) > 0 OR strpos(r::text, $2) > 0`,
					n, hex.EncodeToString([]byte(n))); err != nil {
					db.Close()
					t.Fatalf("search %s.%s: %v", name, rel, err)
				}
				if found > 0 {
					t.Errorf("%q is at rest in %d rows of %s.%s", n, found, name, rel)
				}
			}
		}
		db.Close()
	}
	if tables < 30 {
		t.Fatalf("only %d tables searched", tables)
	}
	logs, err := os.ReadFile(env.logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range needles {
		if bytes.Contains(logs, []byte(n)) {
			t.Errorf("%q is in the services' log", n)
		}
	}
	if testing.Verbose() {
		fmt.Printf("searched %d tables in %v and %d bytes of log for %d values\n", tables, dbs, len(logs), len(needles))
	}
}

// notOnDisk fails the test when a needle is in any of the suite's
// PostgreSQL files once a checkpoint has written them: the WAL, and every
// database's heap, dead rows included — where a value "dropped" from a row
// stays until its pages are reused.
func notOnDisk(t *testing.T, needles ...string) {
	t.Helper()
	admin, err := sqlx.Open("postgres", env.pg.DSN("postgres", "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var dir string
	if _, err := admin.Exec(`CHECKPOINT`); err != nil {
		t.Fatal(err)
	}
	if err := admin.Get(&dir, `SHOW data_directory`); err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, sub := range []string{"pg_wal", "base"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) { // a WAL segment recycled meanwhile
				return nil
			}
			if err != nil {
				return err
			}
			read += len(b)
			for _, n := range needles {
				if bytes.Contains(b, []byte(n)) {
					t.Errorf("%q is in %s", n, strings.TrimPrefix(path, dir))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if read < 16<<20 {
		t.Fatalf("only %d bytes of PostgreSQL's files read", read)
	}
}
