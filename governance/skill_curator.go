package governance

import (
	"sort"
	"time"
)

// The curator: skills nobody used for a while become proposals — an
// active skill to mark stale, a stale one to archive. A reviewer decides
// each; the curator itself changes nothing and deletes nothing. Pinned
// skills are left alone.

// Default idle times of the curator (a reviewer may choose others).
const (
	DefaultSkillStaleAfter   = 60 * 24 * time.Hour
	DefaultSkillArchiveAfter = 30 * 24 * time.Hour
)

// CuratorPolicy is how long a skill may go unused.
type CuratorPolicy struct {
	// StaleAfter: an active skill not used for this long is proposed stale.
	StaleAfter time.Duration
	// ArchiveAfter: a skill stale for this long is proposed for the archive.
	ArchiveAfter time.Duration
}

// CuratorProposal is one change the curator proposes.
type CuratorProposal struct {
	Skill  *Skill
	Action SkillAction
	// Since is the last use (or, never used, when the skill entered its
	// status); Idle how long ago that was.
	Since time.Time
	Idle  time.Duration
}

// CuratorReport is what the curator would change.
type CuratorReport struct {
	Policy    CuratorPolicy
	Proposals []CuratorProposal
	// Pinned counts the skills it left alone because they are pinned.
	Pinned int
	// Checked counts the skills it looked at.
	Checked int
}

// Curate proposes, among skills, the unused active ones to mark stale and
// the long-stale ones to archive, oldest first.
func Curate(skills []*Skill, now time.Time, p CuratorPolicy) *CuratorReport {
	if p.StaleAfter <= 0 {
		p.StaleAfter = DefaultSkillStaleAfter
	}
	if p.ArchiveAfter <= 0 {
		p.ArchiveAfter = DefaultSkillArchiveAfter
	}
	r := &CuratorReport{Policy: p}
	for _, s := range skills {
		if s.Status != SkillActive && s.Status != SkillStale {
			continue
		}
		r.Checked++
		if s.Pinned {
			r.Pinned++
			continue
		}
		since := s.StatusAt
		if s.Status == SkillActive && s.LastUsedAt != nil && s.LastUsedAt.After(since) {
			since = *s.LastUsedAt
		}
		idle := now.Sub(since)
		switch {
		case s.Status == SkillActive && idle >= p.StaleAfter:
			r.Proposals = append(r.Proposals, CuratorProposal{Skill: s, Action: SkillStaleA, Since: since, Idle: idle})
		case s.Status == SkillStale && idle >= p.ArchiveAfter:
			r.Proposals = append(r.Proposals, CuratorProposal{Skill: s, Action: SkillArchive, Since: since, Idle: idle})
		}
	}
	sort.SliceStable(r.Proposals, func(i, j int) bool { return r.Proposals[i].Since.Before(r.Proposals[j].Since) })
	return r
}
