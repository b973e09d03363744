package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/postgres"
)

// pgDumpHint is the answer of "console backup" on PostgreSQL.
const pgDumpHint = `on PostgreSQL, back up with pg_dump and restore with pg_restore (docs/operations.md, "Backup and restore")`

// backup runs "console backup --out FILE": an online copy of the SQLite
// database (VACUUM INTO) while the console keeps serving.
func (e *cmdEnv) backup(args []string) error {
	fs, cfg, envErr := e.flags("backup", "backup --out FILE")
	out := fs.String("out", "", "file to write the backup to (must not exist)")
	if _, err := e.parse(fs, cfg, envErr, args); err != nil {
		return err
	}
	if cfg.Database != "" {
		return errorf(pgDumpHint)
	}
	if *out == "" {
		fs.Usage()
		return e.fail("backup needs --out FILE")
	}
	st, err := store.Open(e.ctx, filepath.Join(cfg.DataDir, "mnemo.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Backup(e.ctx, *out); err != nil {
		return err
	}
	head, err := auditHead(e.ctx, st)
	if err != nil {
		return err
	}
	e.say(e.stdout, "Backed up %s to %s (audit row %d).", filepath.Join(cfg.DataDir, "mnemo.db"), *out, head.ID)
	e.say(e.stdout, `A restore of this file brings back what is forgotten after now unless it replays the newer forgets: see "console restore --help".`)
	return nil
}

// forgetActions are the audit actions a restore replays.
var forgetActions = []string{"rule.forget", "candidate.forget", "subject.forget", "project.delete"}

// restore runs "console restore": on SQLite (no --database) the backup
// becomes the database of an empty data directory; on PostgreSQL the
// operator has pg_restored a dump into a new database (--database) and
// the command only replays onto it (restorePostgres). With --replay-from
// (the database the backup was taken from, or a later backup of it),
// every forget audited there after the backup is applied again and its
// suppression fingerprints carried over, so nothing forgotten comes back.
// Without it a SQLite restore refuses unless --no-replay says the operator
// accepts what the README describes.
func (e *cmdEnv) restore(args []string) error {
	fs, cfg, envErr := e.flags("restore", "restore BACKUP --data DIR (--replay-from OLD_DB | --no-replay) | restore --database NEW_URL --replay-from OLD_URL")
	from := fs.String("replay-from", "", "the database the backup was taken from (or a later backup): its forgets after the backup are applied again; on PostgreSQL the URL of the database the dump was taken from, replayed onto --database after pg_restore")
	noReplay := fs.Bool("no-replay", false, "restore without replaying forgets: what was forgotten after the backup comes back (README)")
	pos, err := e.parse(fs, cfg, envErr, args)
	if err != nil {
		return err
	}
	if cfg.Database != "" {
		if len(pos) != 0 || *from == "" || *noReplay {
			fs.Usage()
			return e.fail("on PostgreSQL, pg_restore the dump into a new database first, then run restore --database NEW_URL --replay-from OLD_URL")
		}
		return e.restorePostgres(cfg, cfg.Database, *from)
	}
	if len(pos) != 1 || (*from == "") == !*noReplay {
		fs.Usage()
		return e.fail("restore needs BACKUP and either --replay-from OLD_DB or --no-replay")
	}
	if isPostgresURL(*from) {
		// A SQLite backup's history is a SQLite database's.
		return e.fail("--replay-from %s: want the SQLite database file the backup was taken from (a PostgreSQL dump is restored with --database)", redactURL(*from))
	}
	dst := filepath.Join(cfg.DataDir, "mnemo.db")
	if _, err := os.Stat(dst); err == nil {
		return e.fail("%s exists: restore only into an empty data directory", dst)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return err
	}
	if err := copyFile(pos[0], dst); err != nil {
		return err
	}
	st, err := store.Open(e.ctx, dst)
	if err != nil {
		os.Remove(dst)
		return errorf("%s: not a console backup: %v", pos[0], err)
	}
	defer st.Close()
	head, err := auditHead(e.ctx, st)
	if err != nil {
		return err
	}
	if *noReplay {
		e.say(e.stdout, "Restored %s into %s (audit row %d). Forgets made after the backup were NOT replayed.", pos[0], dst, head.ID)
		return nil
	}
	old, err := store.Open(e.ctx, *from)
	if err != nil {
		return errorf("--replay-from %s: %v", *from, err)
	}
	defer old.Close()
	// The replay appends to the backup's chain, sealed with the key of
	// the database it was taken from: by default that database's own
	// audit.key, copied into the new data directory.
	keyCfg := *cfg
	key := func() error {
		if keyCfg.AuditKey == "" && keyCfg.AuditKeyFile == "" {
			if _, err := os.Stat(keyCfg.auditKeyPath()); os.IsNotExist(err) {
				if err := copyFile(filepath.Join(filepath.Dir(*from), "audit.key"), keyCfg.auditKeyPath()); err != nil && !os.IsNotExist(err) {
					return errorf("audit key: %v", err)
				}
			}
		}
		return keyAudit(e.ctx, st, keyCfg, nil)
	}
	rep, err := replayForgets(e.ctx, old, st, key)
	if err != nil {
		// The half-replayed database must not be served.
		st.Close()
		os.Remove(dst)
		return err
	}
	// Rewrite the file so no page the replayed forgets freed keeps a copy.
	if err := compact(e, st, dst); err != nil {
		return err
	}
	e.say(e.stdout, "Restored %s into %s (audit row %d); replayed %d forget(s) made after the backup, %d already absent; %d suppression(s) carried over.",
		pos[0], dst, head.ID, rep.replayed, rep.absent, rep.suppressions)
	e.warnEventsBack(rep)
	return nil
}

// restorePostgres replays onto the PostgreSQL database at target (a dump
// pg_restored into a new database) the forgets the database at from
// audited after the dump, refusing while any other session uses target.
// Each replayed forget vacuums what it rewrote, as every PostgreSQL
// forget does; the dump file itself, the WAL and archives are the
// operator's (docs/operations.md, "Backup and restore").
func (e *cmdEnv) restorePostgres(cfg *Config, target, from string) error {
	if !isPostgresURL(from) {
		return e.fail("--replay-from %s: want the postgres:// URL of the database the dump was taken from", from)
	}
	if from == target {
		return e.fail("--replay-from names the database being restored: give the database the dump was taken from")
	}
	st, err := postgres.Open(e.ctx, target)
	if err != nil {
		return err
	}
	defer st.Close()
	// A session whose client has just closed it is listed until its
	// server process has ended: wait a moment for those. A console keeps
	// its pooled connections open while it runs.
	n, err := st.OtherSessions(e.ctx)
	for deadline := time.Now().Add(sessionGrace); err == nil && n > 0 && time.Now().Before(deadline); {
		time.Sleep(sessionGrace / 15)
		n, err = st.OtherSessions(e.ctx)
	}
	if err != nil {
		return err
	}
	if n > 0 {
		return e.fail("%d other session(s) use %s: stop the consoles (and any other client) on it before replaying", n, redactURL(target))
	}
	old, err := postgres.Open(e.ctx, from)
	if err != nil {
		return errorf("--replay-from %s: %v", redactURL(from), err)
	}
	defer old.Close()
	rep, err := replayForgets(e.ctx, old, st, func() error { return keyAudit(e.ctx, st, *cfg, nil) })
	if err != nil {
		if rep != nil && rep.replayed > 0 {
			e.say(e.stderr, "The replay stopped after changing %s: do not serve it; pg_restore the dump into a new database and replay again.", redactURL(target))
		}
		return err
	}
	e.say(e.stdout, "Replayed onto %s the forgets %s audited after audit row %d: %d forget(s) replayed, %d already absent; %d suppression(s) carried over.",
		redactURL(target), redactURL(from), rep.since, rep.replayed, rep.absent, rep.suppressions)
	e.warnEventsBack(rep)
	return nil
}

// sessionGrace is how long a PostgreSQL restore waits for other sessions
// on its target to end before it refuses.
const sessionGrace = 3 * time.Second

// warnEventsBack names the forgets a replay could not apply in full.
func (e *cmdEnv) warnEventsBack(rep *replayReport) {
	for _, f := range rep.eventsBack {
		e.say(e.stderr, "WARNING: audit row %d (%s %s, project %d) redacted events of an object made after the backup; those events are in the restored database again (their seqs are in the row's details). Forget them before serving: forget the subject, or the rule the next beat learns from them.",
			f.ID, f.Action, f.ObjectID, f.ProjectID)
	}
}

// replayStore is what a restore needs of a database, on either backend: of
// the restored one (written) and of the one it came from (read). Both
// *store.Store and *postgres.Store satisfy it; replayForgets reads and
// writes only through it.
type replayStore interface {
	FindAudit(ctx context.Context, f governance.AuditFilter) ([]*governance.AuditEntry, int, error)
	AppendAudit(ctx context.Context, e *governance.AuditEntry) error
	FindSessions(ctx context.Context, f governance.SessionFilter) ([]*governance.SessionInfo, int, error)
	FindSubjectByRef(ctx context.Context, projectID int64, ref string) (string, error)
	ForgetRule(ctx context.Context, actor string, ruleID int64, withEvents bool) (*governance.ForgetReport, error)
	ForgetCandidate(ctx context.Context, actor string, candidateID int64, withEvents bool) (*governance.ForgetReport, error)
	ForgetSubject(ctx context.Context, actor string, projectID int64, subjectID string) (*governance.ForgetReport, error)
	DeleteProject(ctx context.Context, actor string, id int64) (*governance.ProjectDeletion, error)
	FindSuppressions(ctx context.Context) ([]governance.Suppression, error)
	AddSuppressions(ctx context.Context, sups []governance.Suppression) (int, error)
}

var (
	_ replayStore = (*store.Store)(nil)
	_ replayStore = (*postgres.Store)(nil)
)

type replayReport struct {
	// since is the audit row of the old database after which forgets
	// were replayed: the backup's newest, or the last replay's end.
	since                          int64
	replayed, absent, suppressions int
	// eventsBack are forgets of objects the backup does not hold that
	// also redacted events: the backup holds those events unredacted.
	eventsBack []*governance.AuditEntry
}

// replayAction is the audit action of a replay's own record in the
// restored database: which row of the old database's chain it checked
// (object id, its hash in the details) and through which row it replayed,
// so replaying again applies only the forgets made since.
const replayAction = "restore.replay"

type replayDetails struct {
	HeadAction   string `json:"head_action"`
	HeadObject   string `json:"head_object"`
	HeadHash     string `json:"head_hash"`
	Through      int64  `json:"replayed_through"`
	Replayed     int    `json:"replayed"`
	Absent       int    `json:"absent"`
	Suppressions int    `json:"suppressions"`
}

// replayForgets applies to st (the restored backup) every forget old
// audited after the backup, oldest first, through the store's own
// forgets, and copies old's suppression fingerprints. The backup must be
// a past state of old: old's row with the id of the backup's newest audit
// row has its hash. A database replayed before carries its replay's
// record (replayAction), and only the forgets old audited since are
// applied; when there are none and no suppression is new, st is left
// unchanged.
func replayForgets(ctx context.Context, old, st replayStore, key func() error) (*replayReport, error) {
	base, through, err := replayBase(ctx, st)
	if err != nil {
		return nil, err
	}
	if base.ID > 0 {
		rows, _, err := old.FindAudit(ctx, governance.AuditFilter{ObjectID: base.ObjectID, Action: base.Action, Limit: 100000})
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(rows, func(r *governance.AuditEntry) bool { return r.ID == base.ID })
		if i < 0 || rows[i].Hash != base.Hash {
			return nil, errorf("the backup is not an earlier state of the --replay-from database (their audit chains differ); nothing restored")
		}
	}
	// What the replay appends is sealed with the chain's audit key.
	if err := key(); err != nil {
		return nil, err
	}
	// The old database may still serve: what it audits after oldHead is
	// left for the next replay.
	oldHead, err := auditHead(ctx, old)
	if err != nil {
		return nil, err
	}
	var forgets []*governance.AuditEntry
	for _, action := range forgetActions {
		rows, _, err := old.FindAudit(ctx, governance.AuditFilter{Action: action, Limit: 1000000})
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if r.ID > through && r.ID <= oldHead.ID {
				forgets = append(forgets, r)
			}
		}
	}
	slices.SortFunc(forgets, func(a, b *governance.AuditEntry) int { return cmp.Compare(a.ID, b.ID) })
	rep := &replayReport{since: through}
	subjects := &subjectReplay{old: old, st: st}
	if err := subjects.resolve(ctx, forgets); err != nil {
		return nil, err
	}
	for _, f := range forgets {
		var details struct {
			Events int `json:"events"`
		}
		_ = json.Unmarshal([]byte(f.Details), &details)
		withEvents := details.Events > 0
		actor := "restore (replays audit row " + strconv.FormatInt(f.ID, 10) + ")"
		id, _ := strconv.ParseInt(f.ObjectID, 10, 64)
		var err error
		switch f.Action {
		case "rule.forget":
			_, err = st.ForgetRule(ctx, actor, id, withEvents)
		case "candidate.forget":
			_, err = st.ForgetCandidate(ctx, actor, id, withEvents)
		case "subject.forget":
			var n int
			n, err = subjects.replay(ctx, actor, f)
			rep.replayed += n
			if err == nil && n == 0 {
				rep.absent++
			}
			if err != nil {
				return rep, errorf("replaying audit row %d (%s %s): %v", f.ID, f.Action, f.ObjectID, err)
			}
			continue
		case "project.delete":
			_, err = st.DeleteProject(ctx, actor, id)
		}
		switch governance.ErrorCode(err) {
		case "":
			rep.replayed++
		case governance.ENOTFOUND, governance.ECONFLICT:
			// Made after the backup, or already forgotten in it: its
			// content is not in the backup as that object.
			rep.absent++
			if withEvents && governance.ErrorCode(err) == governance.ENOTFOUND {
				rep.eventsBack = append(rep.eventsBack, f)
			}
		default:
			return rep, errorf("replaying audit row %d (%s %s): %v", f.ID, f.Action, f.ObjectID, err)
		}
	}
	sups, err := old.FindSuppressions(ctx)
	if err != nil {
		return rep, err
	}
	if rep.suppressions, err = st.AddSuppressions(ctx, sups); err != nil {
		return rep, err
	}
	if rep.replayed == 0 && rep.suppressions == 0 && through == oldHead.ID {
		return rep, nil
	}
	d, _ := json.Marshal(replayDetails{HeadAction: base.Action, HeadObject: base.ObjectID, HeadHash: base.Hash, Through: oldHead.ID, Replayed: rep.replayed, Absent: rep.absent, Suppressions: rep.suppressions})
	if err := st.AppendAudit(ctx, &governance.AuditEntry{Actor: "restore", Action: replayAction, ObjectType: "audit",
		ObjectID: strconv.FormatInt(base.ID, 10), Details: string(d)}); err != nil {
		return rep, err
	}
	return rep, nil
}

// replayBase is the row of the restored database's audit chain that the
// old database must share (its id, action, object and hash), and the old
// database's row after which forgets are still to be replayed: the
// restored database's newest row, or what its last replay recorded.
func replayBase(ctx context.Context, st replayStore) (base *governance.AuditEntry, through int64, err error) {
	marks, _, err := st.FindAudit(ctx, governance.AuditFilter{Action: replayAction, Limit: 1})
	if err != nil {
		return nil, 0, err
	}
	if len(marks) == 0 {
		head, err := auditHead(ctx, st)
		if err != nil {
			return nil, 0, err
		}
		return head, head.ID, nil
	}
	var d replayDetails
	if err := json.Unmarshal([]byte(marks[0].Details), &d); err != nil {
		return nil, 0, fmt.Errorf("restore: audit row %d: %w", marks[0].ID, err)
	}
	id, _ := strconv.ParseInt(marks[0].ObjectID, 10, 64)
	return &governance.AuditEntry{ID: id, Action: d.HeadAction, ObjectID: d.HeadObject, Hash: d.HeadHash}, d.Through, nil
}

// subjectReplay replays subject forgets. An audit row names the subject
// by a keyed reference whose key the forget deleted, so the subject is
// found in the restored database: by the key it still holds when the key
// was made before the backup (a membership, an earlier forget), else by
// its sessions — a subject forget replaces the ids of the subject's
// sessions by tombstones, so a subject whose sessions the restored
// database holds and the old database holds none of was forgotten.
// Legacy rows, written before keyed references, name the subject plainly.
type subjectReplay struct {
	old, st replayStore
	// byRow holds the subject of each row found by its key (or named
	// plainly), resolved before any forget deletes a key.
	byRow map[int64]string
	// claimed holds those subjects by project: a project's sessions are
	// compared once, at its first row not resolved, for the others.
	claimed map[int64]map[string]bool
	swept   map[int64]bool
}

// resolve finds the subjects of the subject forgets among forgets that
// the restored database holds the keys of.
func (r *subjectReplay) resolve(ctx context.Context, forgets []*governance.AuditEntry) error {
	r.byRow, r.claimed, r.swept = map[int64]string{}, map[int64]map[string]bool{}, map[int64]bool{}
	for _, f := range forgets {
		if f.Action != "subject.forget" {
			continue
		}
		subject, err := r.st.FindSubjectByRef(ctx, f.ProjectID, f.ObjectID)
		switch {
		case err == nil:
		case governance.ErrorCode(err) != governance.ENOTFOUND:
			return err
		case !strings.HasPrefix(f.ObjectID, subjectRefPrefix):
			subject = f.ObjectID // a legacy row's plain subject id
		default:
			continue
		}
		r.byRow[f.ID] = subject
		if r.claimed[f.ProjectID] == nil {
			r.claimed[f.ProjectID] = map[string]bool{}
		}
		r.claimed[f.ProjectID][subject] = true
	}
	return nil
}

// replay applies the subject forget f to r.st and returns how many
// subjects it forgot there.
func (r *subjectReplay) replay(ctx context.Context, actor string, f *governance.AuditEntry) (int, error) {
	var subjects []string
	if subject, ok := r.byRow[f.ID]; ok {
		subjects = []string{subject}
	} else if !r.swept[f.ProjectID] {
		r.swept[f.ProjectID] = true
		vanished, err := r.vanished(ctx, f.ProjectID)
		if err != nil {
			return 0, err
		}
		for _, subject := range vanished {
			if !r.claimed[f.ProjectID][subject] {
				subjects = append(subjects, subject)
			}
		}
	}
	n := 0
	for _, subject := range subjects {
		rep, err := r.st.ForgetSubject(ctx, actor, f.ProjectID, subject)
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			continue // the project is gone from the backup
		}
		if err != nil {
			return n, err
		}
		if len(rep.AuditIDs) > 0 { // else there was nothing left to forget
			n++
		}
	}
	return n, nil
}

// The prefixes of the keyed reference an audit row names a subject by,
// and of the tombstone a forgotten subject's id becomes
// (governance/forgetplan.SubjectRefPrefix, SubjectTombstone).
const (
	subjectRefPrefix       = "subject:"
	subjectTombstonePrefix = "forgotten-subject:"
)

// vanished lists the subjects of a project whose sessions the restored
// database holds and the old database holds none of.
func (r *subjectReplay) vanished(ctx context.Context, projectID int64) ([]string, error) {
	kept := map[string]bool{} // subject → one of its sessions is still in old
	const pageSize = 500
	for offset := 0; ; offset += pageSize {
		sessions, _, err := r.st.FindSessions(ctx, governance.SessionFilter{ProjectID: projectID, Offset: offset, Limit: pageSize})
		if err != nil {
			return nil, err
		}
		for _, s := range sessions {
			if s.SubjectID == "" || strings.HasPrefix(s.SubjectID, subjectTombstonePrefix) || kept[s.SubjectID] {
				continue // no subject, forgotten before, or still in old
			}
			id := s.SessionID
			still, _, err := r.old.FindSessions(ctx, governance.SessionFilter{ProjectID: projectID, SessionID: &id, Limit: 1})
			if err != nil {
				return nil, err
			}
			kept[s.SubjectID] = len(still) > 0
		}
		if len(sessions) < pageSize {
			break
		}
	}
	var out []string
	for subject, k := range kept {
		if !k {
			out = append(out, subject)
		}
	}
	slices.Sort(out)
	return out, nil
}

// compact replaces the database at path (open as st, closed here) by a
// VACUUM INTO copy of itself.
func compact(e *cmdEnv, st *store.Store, path string) error {
	tmp := path + ".compact"
	os.Remove(tmp)
	if err := st.Backup(e.ctx, tmp); err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	return os.Rename(tmp, path)
}

// auditHead is the newest audit row (ID 0 in an empty log).
func auditHead(ctx context.Context, st interface {
	FindAudit(ctx context.Context, f governance.AuditFilter) ([]*governance.AuditEntry, int, error)
}) (*governance.AuditEntry, error) {
	rows, _, err := st.FindAudit(ctx, governance.AuditFilter{Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return &governance.AuditEntry{}, nil
	}
	return rows[0], nil
}

// copyFile copies src to a new file dst and syncs it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
