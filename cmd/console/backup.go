package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
)

// pgDumpHint is the answer of backup and restore on PostgreSQL.
const pgDumpHint = `on PostgreSQL, back up with pg_dump and restore with pg_restore (README, "Backup and restore")`

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
	head, err := auditHead(e, st)
	if err != nil {
		return err
	}
	e.say(e.stdout, "Backed up %s to %s (audit row %d).", filepath.Join(cfg.DataDir, "mnemo.db"), *out, head.ID)
	e.say(e.stdout, `A restore of this file brings back what is forgotten after now unless it replays the newer forgets: see "console restore --help".`)
	return nil
}

// forgetActions are the audit actions a restore replays.
var forgetActions = []string{"rule.forget", "candidate.forget", "subject.forget", "project.delete"}

// restore runs "console restore BACKUP --data DIR [--replay-from OLD]": the
// backup becomes the database of an empty data directory. With
// --replay-from (the database the backup was taken from, or a later
// backup of it), every forget audited there after the backup is applied
// again and its suppression fingerprints carried over, so nothing
// forgotten comes back. Without it the restore refuses unless
// --no-replay says the operator accepts what the README describes.
func (e *cmdEnv) restore(args []string) error {
	fs, cfg, envErr := e.flags("restore", "restore BACKUP --data DIR (--replay-from OLD_DB | --no-replay)")
	from := fs.String("replay-from", "", "the database the backup was taken from (or a later backup): its forgets after the backup are applied again")
	noReplay := fs.Bool("no-replay", false, "restore without replaying forgets: what was forgotten after the backup comes back (README)")
	pos, err := e.parse(fs, cfg, envErr, args)
	if err != nil {
		return err
	}
	if cfg.Database != "" {
		return errorf(pgDumpHint)
	}
	if len(pos) != 1 || (*from == "") == !*noReplay {
		fs.Usage()
		return e.fail("restore needs BACKUP and either --replay-from OLD_DB or --no-replay")
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
	head, err := auditHead(e, st)
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
	rep, err := replayForgets(e, old, st, head)
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
	for _, f := range rep.eventsBack {
		e.say(e.stderr, "WARNING: audit row %d (%s %s, project %d) redacted events of an object made after the backup; those events are in the restored database again (their seqs are in the row's details). Forget them before serving: forget the subject, or the rule the next beat learns from them.",
			f.ID, f.Action, f.ObjectID, f.ProjectID)
	}
	return nil
}

type replayReport struct {
	replayed, absent, suppressions int
	// eventsBack are forgets of objects the backup does not hold that
	// also redacted events: the backup holds those events unredacted.
	eventsBack []*governance.AuditEntry
}

// replayForgets applies to st (the restored backup, whose newest audit row
// is head) every forget old audited after head, oldest first, through the
// store's own forgets, and copies old's suppression fingerprints. The
// backup must be a past state of old: old's row head.ID has head's hash.
func replayForgets(e *cmdEnv, old, st *store.Store, head *governance.AuditEntry) (*replayReport, error) {
	ctx := e.ctx
	if head.ID > 0 {
		rows, _, err := old.FindAudit(ctx, governance.AuditFilter{ObjectID: head.ObjectID, Action: head.Action, Limit: 100000})
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(rows, func(r *governance.AuditEntry) bool { return r.ID == head.ID })
		if i < 0 || rows[i].Hash != head.Hash {
			return nil, errorf("the backup is not an earlier state of the --replay-from database (their audit chains differ); nothing restored")
		}
	}
	var forgets []*governance.AuditEntry
	for _, action := range forgetActions {
		rows, _, err := old.FindAudit(ctx, governance.AuditFilter{Action: action, Limit: 1000000})
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if r.ID > head.ID {
				forgets = append(forgets, r)
			}
		}
	}
	slices.SortFunc(forgets, func(a, b *governance.AuditEntry) int { return int(a.ID - b.ID) })
	rep := &replayReport{}
	for _, f := range forgets {
		var details struct {
			Events int     `json:"events"`
			Seqs   []int64 `json:"event_seqs"`
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
			_, err = st.ForgetSubject(ctx, actor, f.ProjectID, f.ObjectID)
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
			return nil, errorf("replaying audit row %d (%s %s): %v", f.ID, f.Action, f.ObjectID, err)
		}
	}
	sups, err := old.FindSuppressions(ctx)
	if err != nil {
		return nil, err
	}
	if rep.suppressions, err = st.AddSuppressions(ctx, sups); err != nil {
		return nil, err
	}
	return rep, nil
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
func auditHead(e *cmdEnv, st *store.Store) (*governance.AuditEntry, error) {
	rows, _, err := st.FindAudit(e.ctx, governance.AuditFilter{Limit: 1})
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
