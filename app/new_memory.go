package app

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// MemoryDraft is a memory written by hand on a form: a reviewer's "new
// memory" for a project and a scope, or a member's "remember this about
// me".
type MemoryDraft struct {
	// Project is the project's slug.
	Project string
	// Subject is the subject the memory is about, "" for the whole
	// project; a member's memory is always about the member.
	Subject string
	Kind    governance.MemoryType
	Text    string
}

// Propose writes a memory by hand as a proposal in the project's review
// queue (governance.CheckNewMemory: the write gate, audited as
// rule.propose). Reviewers may write one for any scope (promotion reason
// reviewer_created); a member only about themself (explicit_user_instruction:
// they said it), whatever Subject says. Bad input is FieldErrors
// (project, subject, kind, text).
func (rs Rules) Propose(ctx context.Context, actor governance.Actor, d MemoryDraft) (*governance.Rule, error) {
	sc, err := rs.projects.Scope(ctx, actor, strings.TrimSpace(d.Project))
	if governance.ErrorCode(err) == governance.ENOTFOUND {
		return nil, FieldErrors{"project": governance.Say("Choose a project.")}
	}
	if err != nil {
		return nil, err
	}
	n := governance.NewMemory{ProjectID: sc.Project.ID, Kind: d.Kind, Text: d.Text}
	n.SubjectID = strings.TrimSpace(d.Subject)
	if sc.Subject != nil {
		n.SubjectID, n.ByMember = *sc.Subject, true
	}
	if err := governance.Can(actor, governance.ActPropose, governance.InProject(sc.Project).About(n.SubjectID)); err != nil {
		return nil, err
	}
	fe := FieldErrors{}
	if utf8.RuneCountInString(n.SubjectID) > MaxSubjectLen || governance.CheckIdentifier(n.SubjectID) != "" {
		fe["subject"] = governance.Say("The subject id is too long or holds characters that cannot be printed.")
	}
	if !n.Kind.Valid() {
		fe["kind"] = governance.Say("Choose what kind of memory it is.")
	}
	switch text := strings.TrimSpace(n.Text); {
	case text == "":
		fe["text"] = governance.Say("Write what the assistant should remember.")
	case utf8.RuneCountInString(text) > governance.MaxMemoryText:
		fe["text"] = governance.ErrorText(governance.Errorf(governance.EINVALID,
			"The text is too long (at most %d characters).", governance.MaxMemoryText))
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	r, err := rs.store.ProposeMemory(ctx, actor.Name(), n)
	return r, onField(err, "text")
}

// Remember is a member's "remember this about me" in one of their projects
// (slug): a proposal about their own subject that waits for a reviewer
// (Rules.Propose). An account that is no member of the project, or has no
// subject there, gets ENOTFOUND: "my memories" has no such project; no
// project at all is a FieldErrors "project".
func (m Me) Remember(ctx context.Context, actor governance.Actor, slug string, kind governance.MemoryType, text string) (*governance.Rule, error) {
	refs, err := m.Subjects(ctx, actor)
	if err != nil {
		return nil, err
	}
	for _, ref := range refs {
		if ref.Project.Slug == slug {
			return m.rules.Propose(ctx, actor, MemoryDraft{Project: slug, Subject: ref.SubjectID, Kind: kind, Text: text})
		}
	}
	if len(refs) > 0 && strings.TrimSpace(slug) == "" {
		return nil, FieldErrors{"project": governance.Say("Choose a project.")}
	}
	return nil, governance.Errorf(governance.ENOTFOUND, "You are not a member of project %s.", slug)
}
