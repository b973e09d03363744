package skillrows

import (
	"encoding/json"

	"github.com/mnemo-console/mnemo/governance"
)

// The readers of skill rows both stores share, generic over the row
// scanner; each store gives its time columns' destinations and keeps its
// SQL.

// Scanner reads one row's columns (a database/sql row, a pgx row).
type Scanner interface{ Scan(dest ...any) error }

// VersionColumns are the skill_versions columns Dest reads, in its order.
const VersionColumns = `skill_id, version, status, skill_md, fields, digest, findings, examples, eval, origin, source,
	actor, reason, decided_by, decided_at, created_at, redacted`

// Dest are the destinations of VersionColumns in r, with the store's own
// for decided_at and created_at.
func (r *Version) Dest(decidedAt, createdAt any) []any {
	return []any{&r.SkillID, &r.Version, &r.Status, &r.SkillMD, &r.Fields, &r.Digest, &r.Findings, &r.Examples, &r.Eval,
		&r.Origin, &r.Source, &r.Actor, &r.Reason, &r.DecidedBy, decidedAt, createdAt, &r.Redacted}
}

// Versions are a skill's versions as their rows come, decoded, in the
// query's order; Files adds their files.
type Versions struct {
	List     []*governance.SkillVersion
	byNumber map[int]*governance.SkillVersion
}

// NewVersions starts an empty list (List nil).
func NewVersions() *Versions { return &Versions{byNumber: map[int]*governance.SkillVersion{}} }

// Read decodes the version row scan reads of each row into vs.
func Read[R Scanner](vs *Versions, scan func(R, *Version) error) func(R) error {
	return func(row R) error {
		var r Version
		if err := scan(row, &r); err != nil {
			return err
		}
		v := r.Decode()
		vs.List = append(vs.List, v)
		vs.byNumber[v.Version] = v
		return nil
	}
}

// Files adds each row of (version, path, content) to its version's files.
func Files[R Scanner](vs *Versions) func(R) error {
	return func(row R) error {
		var n int
		var f governance.SkillFile
		if err := row.Scan(&n, &f.Path, &f.Content); err != nil {
			return err
		}
		if v := vs.byNumber[n]; v != nil {
			v.Content.Files = append(v.Content.Files, f)
		}
		return nil
	}
}

// Evidence appends each row of (session id, subject id, seqs as JSON,
// check step) to out.
func Evidence[R Scanner](out *[]governance.SkillEvidence) func(R) error {
	return func(row R) error {
		var e governance.SkillEvidence
		var seqs string
		if err := row.Scan(&e.SessionID, &e.SubjectID, &seqs, &e.Check); err != nil {
			return err
		}
		_ = json.Unmarshal([]byte(seqs), &e.Seqs)
		*out = append(*out, e)
		return nil
	}
}

// PageLimit is the page size of a skills list: f's limit, at most
// governance.MaxSkillPage (also when it names none).
func PageLimit(f governance.SkillFilter) int {
	if f.Limit <= 0 || f.Limit > governance.MaxSkillPage {
		return governance.MaxSkillPage
	}
	return f.Limit
}
