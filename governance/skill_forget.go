package governance

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// A forget leaves no copy in skills either. A draft skill the heartbeat
// wrote from the forgotten events (skill_evidence links the two) holds
// their commands, topic and session ids:
//
//   - a draft nobody activated, every version of it drafted from
//     evidence, is deleted whole (versions, files, evidence), as a
//     candidate is;
//   - a skill a reviewer made their own (activated, edited, or imported
//     over) stays: the versions drafted from the forgotten events lose
//     their text (RedactedSkillMD) and are marked Redacted, the lines of
//     its other versions that repeat theirs are replaced (ForgetSkillQuotes),
//     and the links to the forgotten sessions go.
//
// The skills' audit rows keep no content (skillrows) and the reasons given
// on them are redacted with the forget's others.

// SkillForget is what a forget does to one skill drafted from what it
// forgets.
type SkillForget struct {
	SkillID int64
	Name    string
	// Delete: the skill goes whole.
	Delete bool
	// Versions are the versions whose text changes (a kept skill).
	Versions []SkillVersionRewrite
	// Description is the skill's description after the forget.
	Description string
	// Sessions are the evidence sessions whose links go.
	Sessions []string
}

// SkillVersionRewrite is one version's text after a forget: its SKILL.md
// and front-matter fields (Content; a redacted version keeps no files).
type SkillVersionRewrite struct {
	Version int
	Content SkillContent
	// Redacted: the version was drafted from the forgotten events and
	// keeps no text of them.
	Redacted bool
	// Old is the text replaced (for the forget's content hash).
	Old string
}

// PlanSkillForget decides what a forget does to skill s (its versions
// newest first) drafted into versions drafted (SkillEvidence.Version) from
// the forgotten sessions.
func PlanSkillForget(s *Skill, versions []*SkillVersion, drafted []int, sessions []string) *SkillForget {
	f := &SkillForget{SkillID: s.ID, Name: s.Name, Description: s.Description, Sessions: sessions}
	draft := s.Version == 0
	for _, v := range versions {
		if v.Origin != OriginEvidence || v.DecidedBy != "" && v.Status != VersionRejected {
			draft = false
		}
	}
	if draft {
		f.Delete = true
		return f
	}
	var forgotten []string
	redact := map[int]bool{}
	for _, v := range versions {
		if slices.Contains(drafted, v.Version) && v.Origin == OriginEvidence && !v.Redacted {
			redact[v.Version] = true
			forgotten = append(forgotten, v.Content.SkillMD)
		}
	}
	for _, v := range versions {
		if v.Redacted {
			continue
		}
		rw := SkillVersionRewrite{Version: v.Version, Old: v.Content.SkillMD}
		if redact[v.Version] {
			md := RedactedSkillMD(s.Name)
			rw.Content, rw.Redacted = SkillContent{Name: v.Content.Name, Description: RedactedText, SkillMD: md}, true
			_, rw.Content.Body, _ = SplitFrontMatter(md)
		} else {
			c := v.Content
			c.Files = nil
			c.SkillMD = ForgetSkillQuotes(c.SkillMD, forgotten)
			_, c.Body, _ = SplitFrontMatter(c.SkillMD)
			forget := func(x string) string {
				if quotedIn(x, forgotten) {
					return RedactedText
				}
				return x
			}
			c.Description, c.License, c.Compatibility = forget(c.Description), forget(c.License), forget(c.Compatibility)
			if c.Metadata != nil {
				c.Metadata = maps.Clone(c.Metadata)
				for k, x := range c.Metadata {
					c.Metadata[k] = forget(x)
				}
			}
			if c.SkillMD == rw.Old && c.Description == v.Content.Description && maps.Equal(c.Metadata, v.Content.Metadata) &&
				c.License == v.Content.License && c.Compatibility == v.Content.Compatibility {
				continue
			}
			rw.Content = c
		}
		f.Versions = append(f.Versions, rw)
		if v.Content.Description == s.Description && rw.Content.Description != s.Description {
			f.Description = rw.Content.Description
		}
	}
	return f
}

// RedactedSkillMD is the SKILL.md of a version a forget redacted: its
// name, and nothing of what it said.
func RedactedSkillMD(name string) string {
	return "---\nname: " + name + "\ndescription: \"" + RedactedText + "\"\n---\n\n" + RedactedText + "\n"
}

var frontMatterField = regexp.MustCompile(`^(\s*[A-Za-z0-9_-]+:\s*)\S`)

// ForgetSkillQuotes replaces each line of md that repeats a line of one
// of the forgotten texts by RedactedText (in the front matter, the field's
// value), keeping the front matter's fences, its name, blank lines, bare
// keys and the headings every draft has, so the folder stays valid.
func ForgetSkillQuotes(md string, forgotten []string) string {
	quoted := map[string]bool{}
	for _, text := range forgotten {
		for _, line := range strings.Split(text, "\n") {
			if k := strings.TrimSpace(line); quotable(k) {
				quoted[k] = true
			}
		}
	}
	if len(quoted) == 0 {
		return md
	}
	lines := strings.Split(md, "\n")
	inHeader := len(lines) > 0 && strings.TrimSpace(lines[0]) == "---"
	for i, line := range lines {
		k := strings.TrimSpace(line)
		if i > 0 && k == "---" {
			inHeader = false
		}
		if !quoted[k] {
			continue
		}
		if m := frontMatterField.FindStringSubmatch(line); inHeader && m != nil {
			lines[i] = m[1] + `"` + RedactedText + `"`
		} else {
			lines[i] = RedactedText
		}
	}
	return strings.Join(lines, "\n")
}

func quotable(line string) bool {
	return line != "" && line != "---" && !strings.HasPrefix(line, "name:") && !strings.HasSuffix(line, ":") &&
		line != RedactedText && !slices.Contains(draftFixedLines, line)
}

// draftFixedLines are the lines every draft has (DraftSkill), which say
// nothing of its sessions.
var draftFixedLines = []string{draftWhenHeading, draftStepsHeading, draftVerificationHeading, "mnemo-origin: evidence"}

const (
	draftWhenHeading         = "## When to use"
	draftStepsHeading        = "## Steps"
	draftVerificationHeading = "## Verification"
)

func quotedIn(s string, forgotten []string) bool {
	if s == "" || s == RedactedText {
		return false
	}
	for _, text := range forgotten {
		if strings.Contains(text, s) || strings.Contains(text, yamlQuote(s)) {
			return true
		}
	}
	return false
}
