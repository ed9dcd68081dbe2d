package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lib/pq"

	"github.com/kycflow/kycflow/store"
)

// roleMatrix is what each process role may do, table by table (docs/SECURITY.md
// prints the same matrix: TestRoleMatrixAsDocumented). Every table of the
// schema must be listed: a new table without a line here fails
// TestRoleMatrix. "U(col)" is an UPDATE granted on that column only,
// "S(col)" a SELECT.
var roleMatrix = map[string]map[string][]string{
	store.AppRole: {
		"tenants":            {"SELECT"},
		"tenant_hosts":       nil,
		"api_keys":           nil,
		"businesses":         {"SELECT", "INSERT", "DELETE", "U(updated_at)"},
		"customers":          {"SELECT", "INSERT", "DELETE", "U(updated_at)"},
		"checks":             {"SELECT", "INSERT", "UPDATE"},
		"links":              {"SELECT", "INSERT", "UPDATE"},
		"outbox":             {"INSERT"},
		"audit_log":          {"SELECT", "INSERT"},
		"watchlist_versions": {"SELECT"},
		"watchlist_entities": {"SELECT"},
		"goose_db_version":   nil,
		"idempotency_keys":   {"SELECT", "INSERT", "UPDATE", "DELETE"},
		"events":             {"SELECT", "INSERT", "U(data)"},
		"webhook_endpoints":  {"SELECT", "INSERT", "DELETE", "U(secret)", "U(previous_secret)", "U(previous_expires_at)", "U(updated_at)"},
		"webhook_deliveries": {"SELECT", "INSERT", "DELETE"},
		"webhook_attempts":   {"SELECT"},
		"aml_reviews":        {"SELECT", "U(note)", "U(approval_note)"},
		"face_reviews":       {"SELECT", "U(note)", "U(approval_note)"},
		"review_submissions": {"SELECT", "INSERT"},
		"reviewer_names":     {"SELECT", "INSERT"},
		"provider_turns":     nil,
		"provider_slots":     nil,
		"document_attempts":  {"SELECT", "INSERT"},
		"document_images":    {"SELECT", "INSERT"},
		"selfie_attempts":    {"SELECT", "U(status)", "U(uploaded_at)"},
		"selfie_frames":      {"SELECT", "INSERT"},
		"staff":              {"S(id)", "S(tenant_id)", "S(email)", "S(role)", "S(status)", "S(created_at)", "S(updated_at)"},
		"staff_invitations":  nil,
		"staff_sessions":     nil,
		"staff_signin_guard": nil,
		"review_assignments": {"SELECT", "INSERT", "DELETE", "U(staff_id)", "U(assigned_by)", "U(assigned_at)"},
	},
	store.WorkerRole: {
		"tenants":            {"SELECT"},
		"tenant_hosts":       nil,
		"api_keys":           nil,
		"businesses":         {"SELECT", "UPDATE"},
		"customers":          {"SELECT", "UPDATE"},
		"checks":             {"SELECT", "INSERT", "UPDATE"},
		"links":              {"SELECT", "INSERT", "UPDATE"},
		"outbox":             {"INSERT"},
		"audit_log":          nil,
		"watchlist_versions": {"SELECT", "U(rescreened_at)", "U(loaded_at)"},
		"watchlist_entities": {"SELECT"},
		"goose_db_version":   nil,
		"idempotency_keys":   nil,
		"events":             {"SELECT", "INSERT"},
		"webhook_endpoints":  {"SELECT", "U(disabled_at)", "U(disabled_reason)", "U(failing_since)", "U(next_probe_at)", "U(updated_at)"},
		"webhook_deliveries": {"SELECT", "INSERT", "U(status)", "U(attempts)", "U(first_attempt_at)", "U(next_attempt_at)", "U(claimed_until)", "U(announced_at)", "U(finished_at)", "U(updated_at)"},
		"webhook_attempts":   {"SELECT", "INSERT"},
		"aml_reviews":        {"SELECT", "INSERT"},
		"face_reviews":       {"SELECT", "INSERT"},
		"review_submissions": {"SELECT"},
		"reviewer_names":     nil,
		"provider_turns":     nil,
		"provider_slots":     nil,
		"document_attempts":  {"SELECT", "U(status)", "U(reason)", "U(quality)", "U(read_at)", "U(draft_key_id)", "U(draft)"},
		"document_images":    {"SELECT", "DELETE"},
		"selfie_attempts":    {"SELECT", "INSERT", "U(status)", "U(reason)", "U(read_at)"},
		"selfie_frames":      {"SELECT", "DELETE"},
		"staff":              nil,
		"staff_invitations":  nil,
		"staff_sessions":     nil,
		"staff_signin_guard": nil,
		"review_assignments": nil,
	},
}

// setDiff is what a holds that b does not, sorted.
func setDiff(a, b []string) []string {
	inB := map[string]bool{}
	for _, x := range b {
		inB[x] = true
	}
	var out []string
	for _, x := range a {
		if !inB[x] {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// definers is who may call each SECURITY DEFINER function.
var definers = map[string][]string{
	"authenticate(text,bytea)":                                    {store.AppRole},
	"link_by_token(bytea)":                                        {store.AppRole},
	"outbox_claim(integer)":                                       {store.WorkerRole},
	"outbox_settle(bigint[],bigint[],interval)":                   {store.WorkerRole},
	"idempotency_prune(interval)":                                 {store.WorkerRole},
	"events_prune(interval)":                                      {store.WorkerRole},
	"webhook_announce(integer)":                                   {store.WorkerRole},
	"outbox_lag()":                                                {store.WorkerRole},
	"provider_turn(text,text,interval,interval)":                  {store.WorkerRole},
	"provider_slot_take(text,text,integer,uuid,interval)":         {store.WorkerRole},
	"provider_slot_keep(text,text,integer,uuid,interval)":         {store.WorkerRole},
	"document_images_erase()":                                     {store.WorkerRole},
	"tenant_by_host(text)":                                        {store.AppRole},
	"console_session(uuid,bytea)":                                 {store.AppRole},
	"console_session_end(uuid,bytea,boolean)":                     {store.AppRole},
	"console_signin_begin(uuid,text,bytea)":                       {store.AppRole},
	"console_signin_end(uuid,bytea,uuid,uuid,bigint,bytea,text)":  {store.AppRole},
	"console_invitation(uuid,bytea)":                              {store.AppRole},
	"console_enrol(uuid,bytea,text,text,bytea,bigint,bytea,text)": {store.AppRole},
	"console_staff_change(uuid,bytea,text,uuid,text,text,bytea)":  {store.AppRole},
	"staff_signin_guard_prune()":                                  {store.WorkerRole},
}

// columnGrants are the columns of grants' column-level privileges of kind
// ("S" or "U").
func columnGrants(grants []string, kind string) []string {
	var out []string
	for _, g := range grants {
		if col, ok := strings.CutPrefix(g, kind+"("); ok {
			out = append(out, strings.TrimSuffix(col, ")"))
		}
	}
	return out
}

// attempt runs stmt as role in a transaction that is rolled back, and
// returns the SQLSTATE it failed with ("" when it succeeded).
func attempt(t *testing.T, db *sql.DB, role, stmt string, args ...any) string {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("SET LOCAL ROLE " + pq.QuoteIdentifier(role)); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(stmt, args...)
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		return string(pqErr.Code)
	}
	if err != nil {
		t.Fatalf("%s as %s: %v", stmt, role, err)
	}
	return ""
}

const insufficientPrivilege = "42501"

// Each role has exactly the privileges of the matrix, and every privilege it
// must not have is refused when tried.
func TestRoleMatrix(t *testing.T) {
	owner := open(t, ownerDSN).DB()
	admin := owner.DB
	var tables []string
	if err := owner.Select(&tables, `SELECT relname FROM pg_class
		WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p', 'v', 'm') ORDER BY relname`); err != nil {
		t.Fatal(err)
	}
	privileges := []string{"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"}
	for role, grants := range roleMatrix {
		for _, table := range tables {
			allowed, listed := grants[table]
			if !listed {
				t.Errorf("table %s is not in the role matrix (store/security_test.go, docs/SECURITY.md)", table)
				continue
			}
			var firstCol string
			if err := admin.QueryRow(`SELECT attname FROM pg_attribute WHERE attrelid = ('public.' || $1)::regclass AND attnum = 1`, table).Scan(&firstCol); err != nil {
				t.Fatal(err)
			}
			for _, p := range privileges {
				var has bool
				if err := admin.QueryRow(`SELECT has_table_privilege($1, 'public.' || $2, $3)`, role, table, p).Scan(&has); err != nil {
					t.Fatal(err)
				}
				want := slices.Contains(allowed, p)
				if has != want {
					t.Errorf("%s %s on %s: has %v, the matrix says %v", role, p, table, has, want)
				}
				if want {
					continue
				}
				// Try it: the database itself must refuse (a SELECT of a
				// column not granted, where some are).
				q := pq.QuoteIdentifier(table)
				selected := "count(*)"
				if cols := columnGrants(allowed, "S"); cols != nil {
					if err := admin.QueryRow(`SELECT attname FROM pg_attribute WHERE attrelid = ('public.' || $1)::regclass AND attnum > 0
						AND NOT attisdropped AND NOT attname = ANY($2) ORDER BY attnum LIMIT 1`, table, pq.Array(cols)).Scan(&selected); err != nil {
						t.Fatal(err)
					}
				}
				stmt := map[string]string{
					"SELECT":   "SELECT " + selected + " FROM public." + q,
					"INSERT":   "INSERT INTO public." + q + " DEFAULT VALUES",
					"UPDATE":   "UPDATE public." + q + " SET " + pq.QuoteIdentifier(firstCol) + " = " + pq.QuoteIdentifier(firstCol),
					"DELETE":   "DELETE FROM public." + q,
					"TRUNCATE": "TRUNCATE public." + q,
				}[p]
				if stmt != "" {
					if code := attempt(t, admin, role, stmt); code != insufficientPrivilege {
						t.Errorf("%s as %s: SQLSTATE %q, want %s (permission denied)", stmt, role, code, insufficientPrivilege)
					}
				}
			}
		}
		// Column by column, both ways: a column-level grant the matrix does
		// not list (which has_table_privilege cannot see) fails as surely as
		// a missing one. A table-level privilege covers every column.
		var has []string
		if err := owner.Select(&has, `SELECT c.relname || '.' || a.attname || ' ' || p.priv
			FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
			CROSS JOIN unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'REFERENCES']) AS p(priv)
			WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm')
			AND has_column_privilege($1, c.oid, a.attnum, p.priv)`, role); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, table := range tables {
			var cols []string
			if err := owner.Select(&cols, `SELECT attname FROM pg_attribute
				WHERE attrelid = ('public.' || $1)::regclass AND attnum > 0 AND NOT attisdropped`, table); err != nil {
				t.Fatal(err)
			}
			for _, g := range grants[table] {
				if col, ok := strings.CutPrefix(g, "U("); ok {
					want = append(want, table+"."+strings.TrimSuffix(col, ")")+" UPDATE")
					continue
				}
				if col, ok := strings.CutPrefix(g, "S("); ok {
					want = append(want, table+"."+strings.TrimSuffix(col, ")")+" SELECT")
					continue
				}
				for _, col := range cols {
					if g != "DELETE" { // DELETE has no column form
						want = append(want, table+"."+col+" "+g)
					}
				}
			}
		}
		for _, d := range setDiff(has, want) {
			t.Errorf("%s has %s, which the matrix does not grant", role, d)
		}
		for _, d := range setDiff(want, has) {
			t.Errorf("%s lacks %s, which the matrix grants", role, d)
		}
	}
	// Functions: each definer function callable by the roles listed, no other.
	for fn, callers := range definers {
		for role := range roleMatrix {
			var has bool
			if err := admin.QueryRow(`SELECT has_function_privilege($1, 'public.' || $2, 'EXECUTE')`, role, fn).Scan(&has); err != nil {
				t.Fatal(err)
			}
			if want := slices.Contains(callers, role); has != want {
				t.Errorf("%s EXECUTE on %s: has %v, want %v", role, fn, has, want)
			}
		}
	}
	// Nor may the process roles create anything, temporary or not.
	for role := range roleMatrix {
		for _, stmt := range []string{"CREATE TEMP TABLE shadow (x int)", "CREATE TABLE public.shadow (x int)",
			"CREATE FUNCTION public.shadow() RETURNS int LANGUAGE sql AS 'SELECT 1'", "CREATE SCHEMA shadow"} {
			if code := attempt(t, admin, role, stmt); code != insufficientPrivilege {
				t.Errorf("%s as %s: SQLSTATE %q, want permission denied", stmt, role, code)
			}
		}
	}
}

// docs/SECURITY.md's role matrix says what roleMatrix says, both ways:
// the same tables, and for each role the same privileges. A cell is read
// as S, I, U, D and U(col, …) tokens; other parenthesised words are notes,
// "—" is nothing, and any other word fails the test (so the table stays
// readable here).
func TestRoleMatrixAsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/SECURITY.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "### The role matrix")
	if !ok {
		t.Fatal("docs/SECURITY.md has no section \"The role matrix\"")
	}
	backticked := regexp.MustCompile("`([a-z_]+)`")
	columnGrant := regexp.MustCompile(`\b([SU])\(([a-z_, ]+)\)`)
	note := regexp.MustCompile(`\([^()]*\)`)
	letters := map[string]string{"S": "SELECT", "I": "INSERT", "U": "UPDATE", "D": "DELETE"}
	read := func(cell string) []string {
		var out []string
		for _, m := range columnGrant.FindAllStringSubmatch(cell, -1) {
			for col := range strings.SplitSeq(m[2], ",") {
				out = append(out, m[1]+"("+strings.TrimSpace(col)+")")
			}
		}
		rest := note.ReplaceAllString(columnGrant.ReplaceAllString(cell, ""), "")
		for _, w := range strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == ',' }) {
			switch p, ok := letters[w]; {
			case ok:
				out = append(out, p)
			case w == "—" || w == "¹":
			default:
				t.Errorf("docs/SECURITY.md role matrix: cannot read %q in %q", w, cell)
			}
		}
		return out
	}
	documented := map[string]map[string][]string{} // role → table → grants
	var roles []string                             // by column
	for line := range strings.Lines(section) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if roles != nil {
				break // the table's end
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		switch {
		case roles == nil: // the header: which role each column is
			for _, c := range cells[1:] {
				m := backticked.FindStringSubmatch(c)
				if m == nil || roleMatrix[m[1]] == nil {
					t.Fatalf("role matrix header %q: a column names no role", line)
				}
				roles = append(roles, m[1])
				documented[m[1]] = map[string][]string{}
			}
		case strings.HasPrefix(line, "|---"):
		default:
			if len(cells) != len(roles)+1 {
				t.Fatalf("role matrix row %q: %d cells", line, len(cells))
			}
			for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
				for i, role := range roles {
					if _, dup := documented[role][m[1]]; dup {
						t.Errorf("role matrix: %s twice", m[1])
					}
					documented[role][m[1]] = read(cells[i+1])
				}
			}
		}
	}
	if len(roles) != len(roleMatrix) {
		t.Fatalf("role matrix: columns for %v, want every role of roleMatrix", roles)
	}
	for role, grants := range roleMatrix {
		for table, want := range grants {
			got, ok := documented[role][table]
			if !ok {
				t.Errorf("docs/SECURITY.md's role matrix has no row for %s", table)
				continue
			}
			if extra, missing := setDiff(got, want), setDiff(want, got); extra != nil || missing != nil {
				t.Errorf("%s on %s: the document adds %v and lacks %v", role, table, extra, missing)
			}
		}
		for table := range documented[role] {
			if _, ok := grants[table]; !ok {
				t.Errorf("docs/SECURITY.md's role matrix lists %s, which roleMatrix does not", table)
			}
		}
	}
}

// The roles are what their names promise: no superuser anywhere, only the
// owner bypasses row-level security, only the process roles log in.
func TestRoleAttributes(t *testing.T) {
	admin := open(t, ownerDSN).DB()
	type attrs struct {
		Name       string `db:"rolname"`
		Super      bool   `db:"rolsuper"`
		BypassRLS  bool   `db:"rolbypassrls"`
		Login      bool   `db:"rolcanlogin"`
		CreateRole bool   `db:"rolcreaterole"`
		CreateDB   bool   `db:"rolcreatedb"`
	}
	var rs []attrs
	if err := admin.Select(&rs, `SELECT rolname, rolsuper, rolbypassrls, rolcanlogin, rolcreaterole, rolcreatedb
		FROM pg_roles WHERE rolname = ANY($1)`, pq.Array([]string{store.OwnerRole, store.AppRole, store.WorkerRole})); err != nil {
		t.Fatal(err)
	}
	want := map[string]attrs{
		store.OwnerRole:  {Name: store.OwnerRole, BypassRLS: true},
		store.AppRole:    {Name: store.AppRole, Login: true},
		store.WorkerRole: {Name: store.WorkerRole, Login: true},
	}
	if len(rs) != len(want) {
		t.Fatalf("roles %v", rs)
	}
	for _, r := range rs {
		if r != want[r.Name] {
			t.Errorf("role %s: %+v, want %+v", r.Name, r, want[r.Name])
		}
	}
	// Every object of the schema belongs to the owner role.
	var strays []string
	if err := admin.Select(&strays, `
		SELECT relname || ' (' || pg_get_userbyid(relowner) || ')' FROM pg_class
		WHERE relnamespace = 'public'::regnamespace AND pg_get_userbyid(relowner) <> $1
		UNION ALL
		SELECT proname || ' (' || pg_get_userbyid(proowner) || ')' FROM pg_proc
		WHERE pronamespace = 'public'::regnamespace AND pg_get_userbyid(proowner) <> $1`, store.OwnerRole); err != nil {
		t.Fatal(err)
	}
	if len(strays) > 0 {
		t.Errorf("objects not owned by %s: %v", store.OwnerRole, strays)
	}
}

// No SECURITY DEFINER function anywhere in the database belongs to a
// superuser, and each one fixes its search_path with pg_temp last.
func TestDefinerFunctionsAreSafe(t *testing.T) {
	admin := open(t, ownerDSN).DB()
	type fn struct {
		Name   string         `db:"name"`
		Owner  string         `db:"owner"`
		Super  bool           `db:"super"`
		Config pq.StringArray `db:"config"`
	}
	var fns []fn
	if err := admin.Select(&fns, `
		SELECT p.oid::regprocedure::text AS name, r.rolname AS owner, r.rolsuper AS super, coalesce(p.proconfig, '{}') AS config
		FROM pg_proc p JOIN pg_roles r ON r.oid = p.proowner
		WHERE p.prosecdef AND p.pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)`); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fns {
		names = append(names, f.Name)
		if f.Super || f.Owner != store.OwnerRole {
			t.Errorf("%s is owned by %s (superuser %v), want %s", f.Name, f.Owner, f.Super, store.OwnerRole)
		}
		var path string
		for _, c := range f.Config {
			if v, ok := strings.CutPrefix(c, "search_path="); ok {
				path = v
			}
		}
		parts := strings.Split(strings.ReplaceAll(path, " ", ""), ",")
		if len(parts) < 2 || parts[0] != "pg_catalog" || parts[len(parts)-1] != "pg_temp" {
			t.Errorf("%s: search_path %q, want pg_catalog first and pg_temp last", f.Name, path)
		}
		if _, ok := definers[strings.TrimPrefix(f.Name, "public.")]; !ok && f.Name != "attack_control()" {
			t.Errorf("%s is a definer function without an attack case in TestSearchPathAttack", f.Name)
		}
	}
	if len(fns) != len(definers) {
		t.Errorf("definer functions %v, want those of %v", names, definers)
	}
}

// The pg_temp attack: a role that may create temporary objects shadows the
// tables a definer function reads with temporary views and tables whose
// triggers call a function of its own, then calls the definer function. Had
// the function read the shadows, that function would run with the owner's
// rights. The attack is first run against a deliberately unsafe function (so
// the test can tell a working attack), then against each real one.
func TestSearchPathAttack(t *testing.T) {
	ctx := context.Background()
	adminStore := open(t, ownerDSN)
	admin := adminStore.DB()
	tn := newTenant(t, adminStore, "victim.example")
	app := open(t, appDSN)
	if _, _, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: "Victim BV", CountryID: 528, CoCNumber: "12345678"}, nil); err != nil {
		t.Fatal(err)
	}
	// The attacker gets the one privilege the schema denies it (TEMP), to
	// show the functions hold even then.
	if _, err := admin.Exec(`GRANT TEMPORARY ON DATABASE kycflow TO kycflow_app, kycflow_worker`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(`REVOKE TEMPORARY ON DATABASE kycflow FROM kycflow_app, kycflow_worker`) })

	hash := store.HashKey("kyc_live_attacker")
	shadows := []string{
		// The evidence: who ran the attacker's function, and how many
		// businesses (all tenants') it could see.
		`CREATE TEMP TABLE evidence (fn text, who text, superuser text, businesses bigint)`,
		`GRANT ALL ON pg_temp.evidence TO PUBLIC`,
		`CREATE FUNCTION pg_temp.spy(fn text) RETURNS boolean LANGUAGE plpgsql AS $$
		 BEGIN
		     INSERT INTO pg_temp.evidence SELECT fn, current_user, current_setting('is_superuser'),
		         (SELECT count(*) FROM public.businesses);
		     RETURN true;
		 END $$`,
		`CREATE FUNCTION pg_temp.spy_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN PERFORM pg_temp.spy(TG_TABLE_NAME || ' trigger'); RETURN NEW; END $$`,
		`CREATE TEMP VIEW tenant_hosts AS SELECT 'victim.example'::text AS host, '` + tn.ID.String() + `'::uuid AS tenant_id
		 WHERE pg_temp.spy('tenant_hosts view')`,
		`CREATE TEMP TABLE api_keys (id uuid, tenant_id uuid, prefix text, hash bytea, created_at timestamptz, last_used_at timestamptz, revoked_at timestamptz)`,
		`INSERT INTO pg_temp.api_keys VALUES (gen_random_uuid(), '` + tn.ID.String() + `', 'kyc_live_atta', '\x` + fmt.Sprintf("%x", hash) + `', now(), NULL, NULL)`,
		`CREATE TRIGGER spy BEFORE UPDATE ON pg_temp.api_keys FOR EACH ROW EXECUTE FUNCTION pg_temp.spy_trigger()`,
		`CREATE TEMP VIEW links AS SELECT '` + tn.ID.String() + `'::uuid AS tenant_id, gen_random_uuid() AS check_id,
		 '\x00'::bytea AS token_hash WHERE pg_temp.spy('links view')`,
		`CREATE TEMP TABLE outbox_rows (id bigint, tenant_id uuid, check_id uuid, action text, payload jsonb, attempts integer, not_before timestamptz)`,
		`INSERT INTO pg_temp.outbox_rows VALUES (1, '` + tn.ID.String() + `', gen_random_uuid(), 'start', '{}', 0, now() - interval '1 hour')`,
		`CREATE TEMP VIEW outbox AS SELECT * FROM pg_temp.outbox_rows WHERE pg_temp.spy('outbox view')`,
		`CREATE TEMP TABLE idempotency_rows (tenant_id uuid, key text, created_at timestamptz)`,
		`INSERT INTO pg_temp.idempotency_rows VALUES ('` + tn.ID.String() + `', 'k', now() - interval '2 days')`,
		`CREATE TEMP VIEW idempotency_keys AS SELECT * FROM pg_temp.idempotency_rows WHERE pg_temp.spy('idempotency view')`,
		`CREATE TEMP TABLE event_rows (tenant_id uuid, created_at timestamptz)`,
		`INSERT INTO pg_temp.event_rows VALUES ('` + tn.ID.String() + `', now() - interval '60 days')`,
		`CREATE TEMP VIEW events AS SELECT * FROM pg_temp.event_rows WHERE pg_temp.spy('events view')`,
		`CREATE TEMP TABLE delivery_rows (id uuid, tenant_id uuid, endpoint_id uuid, announced_at timestamptz)`,
		`INSERT INTO pg_temp.delivery_rows VALUES (gen_random_uuid(), '` + tn.ID.String() + `', gen_random_uuid(), NULL)`,
		`CREATE TEMP VIEW webhook_deliveries AS SELECT * FROM pg_temp.delivery_rows WHERE pg_temp.spy('deliveries view')`,
		`CREATE TEMP TABLE provider_turns (provider text, scope text, next_at timestamptz, PRIMARY KEY (provider, scope))`,
		`CREATE TRIGGER spy BEFORE INSERT OR UPDATE ON pg_temp.provider_turns FOR EACH ROW EXECUTE FUNCTION pg_temp.spy_trigger()`,
		`CREATE TEMP TABLE provider_slots (provider text, scope text, slot integer, holder uuid, held_until timestamptz, PRIMARY KEY (provider, scope, slot))`,
		`INSERT INTO pg_temp.provider_slots VALUES ('attack', '', 0, NULL, '-infinity')`,
		`CREATE TRIGGER spy BEFORE INSERT OR UPDATE ON pg_temp.provider_slots FOR EACH ROW EXECUTE FUNCTION pg_temp.spy_trigger()`,
		`CREATE TEMP TABLE staff (id uuid, tenant_id uuid, email text, role text, status text, password_hash text, totp_key_id text,
		 totp_sealed bytea, totp_step bigint, created_at timestamptz, updated_at timestamptz)`,
		`INSERT INTO pg_temp.staff VALUES (gen_random_uuid(), '` + tn.ID.String() + `', 'eve@victim.example', 'admin', 'active', 'h', 'k', '\x00', 0, now(), now())`,
		`CREATE TRIGGER spy BEFORE INSERT OR UPDATE ON pg_temp.staff FOR EACH ROW EXECUTE FUNCTION pg_temp.spy_trigger()`,
		`CREATE TEMP TABLE staff_sessions (token_hash bytea, tenant_id uuid, staff_id uuid, csrf text, created_at timestamptz, seen_at timestamptz, ended_at timestamptz)`,
		`INSERT INTO pg_temp.staff_sessions SELECT '\x00', tenant_id, id, 'c', now(), now(), NULL FROM pg_temp.staff`,
		`CREATE TRIGGER spy BEFORE INSERT OR UPDATE ON pg_temp.staff_sessions FOR EACH ROW EXECUTE FUNCTION pg_temp.spy_trigger()`,
		`CREATE TEMP VIEW staff_invitations AS SELECT '\x00'::bytea AS token_hash, '` + tn.ID.String() + `'::uuid AS tenant_id, gen_random_uuid() AS staff_id,
		 now() + interval '1 day' AS expires_at, NULL::timestamptz AS used_at WHERE pg_temp.spy('invitations view')`,
		`CREATE TEMP TABLE staff_signin_guard (tenant_id uuid, key bytea, failures integer, locked_until timestamptz, updated_at timestamptz, PRIMARY KEY (tenant_id, key))`,
		`CREATE TRIGGER spy BEFORE INSERT OR UPDATE OR DELETE ON pg_temp.staff_signin_guard FOR EACH ROW EXECUTE FUNCTION pg_temp.spy_trigger()`,
		`GRANT ALL ON pg_temp.staff, pg_temp.staff_sessions, pg_temp.staff_invitations, pg_temp.staff_signin_guard TO PUBLIC`,
		`GRANT ALL ON pg_temp.provider_turns, pg_temp.provider_slots, pg_temp.tenant_hosts, pg_temp.api_keys, pg_temp.links, pg_temp.outbox, pg_temp.outbox_rows, pg_temp.idempotency_keys, pg_temp.idempotency_rows, pg_temp.events, pg_temp.event_rows, pg_temp.webhook_deliveries, pg_temp.delivery_rows TO PUBLIC`,
	}
	calls := map[string]string{
		"authenticate(text,bytea)":                            `SELECT count(*) FROM public.authenticate('victim.example', $1)`,
		"link_by_token(bytea)":                                `SELECT count(*) FROM public.link_by_token('\x00')`,
		"outbox_claim(integer)":                               `SELECT count(*) FROM public.outbox_claim(10)`,
		"outbox_settle(bigint[],bigint[],interval)":           `SELECT public.outbox_settle('{1}', '{1}', '1 second')`,
		"idempotency_prune(interval)":                         `SELECT public.idempotency_prune('1 day')`,
		"events_prune(interval)":                              `SELECT public.events_prune('30 days')`,
		"webhook_announce(integer)":                           `SELECT count(*) FROM public.webhook_announce(10)`,
		"outbox_lag()":                                        `SELECT public.outbox_lag()`,
		"provider_turn(text,text,interval,interval)":          `SELECT public.provider_turn('attack', '', '1 millisecond', '1 second')`,
		"provider_slot_take(text,text,integer,uuid,interval)": `SELECT public.provider_slot_take('attack', '', 1, gen_random_uuid(), '1 second')`,
		"provider_slot_keep(text,text,integer,uuid,interval)": `SELECT public.provider_slot_keep('attack', '', 0, gen_random_uuid(), '1 second')`,
		"document_images_erase()":                             `SELECT public.document_images_erase()`,
		"tenant_by_host(text)":                                `SELECT public.tenant_by_host('victim.example')`,
		"console_session(uuid,bytea)":                         `SELECT count(*) FROM public.console_session('` + tn.ID.String() + `', '\x00')`,
		"console_session_end(uuid,bytea,boolean)":             `SELECT public.console_session_end('` + tn.ID.String() + `', '\x00', true)`,
		"console_signin_begin(uuid,text,bytea)":               `SELECT count(*) FROM public.console_signin_begin('` + tn.ID.String() + `', 'eve@victim.example', '\xabababababababababababababababababababababababababababababababab')`,
		"console_signin_end(uuid,bytea,uuid,uuid,bigint,bytea,text)": `SELECT public.console_signin_end('` + tn.ID.String() + `', '\x00', gen_random_uuid(), gen_random_uuid(),
			floor(extract(epoch FROM now()) / 30)::bigint, '\x01', 'c')`,
		"console_invitation(uuid,bytea)": `SELECT count(*) FROM public.console_invitation('` + tn.ID.String() + `', '\x00')`,
		"console_enrol(uuid,bytea,text,text,bytea,bigint,bytea,text)": `SELECT public.console_enrol('` + tn.ID.String() + `', '\x00', 'h', 'k', '\x00',
			floor(extract(epoch FROM now()) / 30)::bigint, '\x01', 'c')`,
		"console_staff_change(uuid,bytea,text,uuid,text,text,bytea)": `DO $$ BEGIN
			PERFORM public.console_staff_change('` + tn.ID.String() + `', '\x00', 'invite', NULL, 'eve@victim.example', 'admin', '\x00');
			EXCEPTION WHEN insufficient_privilege THEN NULL; END $$`,
		"staff_signin_guard_prune()": `SELECT public.staff_signin_guard_prune()`,
		"attack_control()":           `SELECT public.attack_control()`,
	}
	type proof struct {
		Fn, Who, Superuser string
		Businesses         int64
	}
	// run performs the attack as role on one session and returns the evidence.
	run := func(t *testing.T, role, dsn, fn string) []proof {
		t.Helper()
		db := open(t, dsn).DB()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, s := range shadows {
			if _, err := conn.ExecContext(ctx, s); err != nil {
				t.Fatalf("as %s: %s: %v", role, s, err)
			}
		}
		if calls[fn] == "" {
			t.Fatalf("no attack call for %s", fn)
		}
		var args []any
		if fn == "authenticate(text,bytea)" {
			args = append(args, hash)
		}
		if _, err := conn.ExecContext(ctx, calls[fn], args...); err != nil {
			t.Fatalf("%s as %s: %v", fn, role, err)
		}
		rows, err := conn.QueryContext(ctx, `SELECT fn, who, superuser, businesses FROM pg_temp.evidence`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []proof
		for rows.Next() {
			var p proof
			if err := rows.Scan(&p.Fn, &p.Who, &p.Superuser, &p.Businesses); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}

	t.Run("control", func(t *testing.T) {
		// A definer function written the unsafe way: unqualified names and
		// the default search_path, so pg_temp is searched first.
		if _, err := admin.Exec(`CREATE FUNCTION public.attack_control() RETURNS bigint
			LANGUAGE sql SECURITY DEFINER SET search_path = public AS 'SELECT count(*) FROM tenant_hosts'`); err != nil {
			t.Fatal(err)
		}
		defer admin.Exec(`DROP FUNCTION public.attack_control()`)
		for _, s := range []string{`ALTER FUNCTION public.attack_control() OWNER TO kycflow_owner`,
			`REVOKE ALL ON FUNCTION public.attack_control() FROM PUBLIC`, `GRANT EXECUTE ON FUNCTION public.attack_control() TO kycflow_app`} {
			if _, err := admin.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		got := run(t, store.AppRole, appDSN, "attack_control()")
		if len(got) == 0 || got[0].Who != store.OwnerRole {
			t.Fatalf("the attack harness did not catch an unsafe function: %+v", got)
		}
		// Even then the owner is no superuser.
		if got[0].Superuser != "off" {
			t.Fatalf("the unsafe function ran as a superuser: %+v", got)
		}
	})

	roles := map[string]string{store.AppRole: appDSN, store.WorkerRole: workerDSN}
	for fn, callers := range definers {
		t.Run(fn, func(t *testing.T) {
			for _, role := range callers {
				if got := run(t, role, roles[role], fn); len(got) > 0 {
					t.Fatalf("%s as %s ran the attacker's code: %+v", fn, role, got)
				}
			}
		})
	}
	// The attacker gained nothing: the tenant's key was not touched, and the
	// fake key does not authenticate.
	if _, err := app.Authenticate(ctx, "victim.example", hash); !errors.Is(err, store.ErrUnauthenticated) {
		t.Fatalf("the attacker's key authenticated: %v", err)
	}
}

// A revoked key stays revoked whatever SQL the app role runs: it can neither
// read nor change api_keys, with or without a tenant set.
func TestRevokedKeyStaysRevoked(t *testing.T) {
	ctx := context.Background()
	adminStore := open(t, ownerDSN)
	tn, key, err := adminStore.CreateTenant(ctx, "Revoked", []string{"revoked.example"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := adminStore.RevokeKey(ctx, tn.ID, key[:13]); err != nil {
		t.Fatal(err)
	}
	admin := adminStore.DB().DB
	for _, role := range []string{store.AppRole, store.WorkerRole} {
		for _, stmt := range []string{
			`UPDATE public.api_keys SET revoked_at = NULL`,
			`SELECT hash FROM public.api_keys`,
			`INSERT INTO public.api_keys (id, tenant_id, prefix, hash) VALUES (gen_random_uuid(), '` + tn.ID.String() + `', 'x', '\x01')`,
			`DELETE FROM public.api_keys`,
			`UPDATE public.tenant_hosts SET tenant_id = '` + tn.ID.String() + `'`,
			`INSERT INTO public.tenant_hosts VALUES ('evil.example', '` + tn.ID.String() + `')`,
		} {
			for _, setTenant := range []bool{false, true} {
				tx, err := admin.Begin()
				if err != nil {
					t.Fatal(err)
				}
				tx.Exec("SET LOCAL ROLE " + role)
				if setTenant {
					tx.Exec(`SELECT set_config('app.tenant_id', $1, true)`, tn.ID.String())
				}
				_, err = tx.Exec(stmt)
				tx.Rollback()
				var pqErr *pq.Error
				if !errors.As(err, &pqErr) || pqErr.Code != insufficientPrivilege {
					t.Errorf("%s as %s (tenant set: %v): %v, want permission denied", stmt, role, setTenant, err)
				}
			}
		}
	}
	if _, err := open(t, appDSN).Authenticate(ctx, "revoked.example", store.HashKey(key)); !errors.Is(err, store.ErrUnauthenticated) {
		t.Fatalf("revoked key: %v", err)
	}
}

// A database migrated before the owner role existed has objects of the
// superuser: migrate hands every one of them to the owner role.
func TestMigrateHandsOverOldObjects(t *testing.T) {
	admin := open(t, ownerDSN).DB()
	for _, s := range []string{
		`CREATE TABLE public.legacy_rows (id bigserial PRIMARY KEY)`,
		`CREATE FUNCTION public.legacy_fn() RETURNS int LANGUAGE sql AS 'SELECT 1'`,
		`ALTER FUNCTION public.authenticate(text, bytea) OWNER TO postgres`,
	} {
		if _, err := admin.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { admin.Exec(`DROP TABLE public.legacy_rows; DROP FUNCTION public.legacy_fn()`) })
	if err := store.Migrate(context.Background(), ownerDSN, store.RolePasswords{}); err != nil {
		t.Fatal(err)
	}
	var owners []string
	if err := admin.Select(&owners, `
		SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid IN ('public.legacy_rows'::regclass, 'public.legacy_rows_id_seq'::regclass)
		UNION ALL SELECT pg_get_userbyid(proowner) FROM pg_proc WHERE oid IN ('public.legacy_fn()'::regprocedure, 'public.authenticate(text,bytea)'::regprocedure)`); err != nil {
		t.Fatal(err)
	}
	if len(owners) != 4 || slices.ContainsFunc(owners, func(o string) bool { return o != store.OwnerRole }) {
		t.Fatalf("owners after migrate: %v", owners)
	}
}
