package governance

import (
	"maps"
	"slices"
	"strings"
)

// Credentials in a skill are not kept: before a version is stored, every
// credential the write gate finds in its text files is replaced by the
// gate's mask ("[REDACTED:<pattern>]"), so neither the store, nor a
// reviewer's page, nor an agent, nor a synced folder ever holds it. What
// was masked stays visible: one finding per mask, its span that of the
// mask in the stored text, marked Redacted.

// CredentialMask is how the write gate writes a credential it replaced.
func CredentialMask(pattern string) string { return credentialMaskPrefix + pattern + "]" }

const credentialMaskPrefix = "[REDACTED:"

// MaskSkillCredentials replaces the credentials scan finds in c's text
// files (SKILL.md and its front-matter fields included) by their masks and
// returns a finding for each mask it wrote. A nil scan masks nothing.
func MaskSkillCredentials(c *SkillContent, scan func(text string) GateResult) []SkillFinding {
	if scan == nil {
		return nil
	}
	var out []SkillFinding
	mask := func(path, text string) string {
		r := scan(text)
		if !r.Redacted() {
			return text
		}
		byPattern := map[string]Finding{}
		for _, f := range r.Findings {
			if f.Redacted {
				byPattern[f.Pattern] = f
			}
		}
		for i := 0; ; {
			lo := strings.Index(r.Text[i:], credentialMaskPrefix)
			if lo < 0 {
				break
			}
			lo += i
			end := strings.IndexByte(r.Text[lo:], ']')
			if end < 0 {
				break
			}
			hi := lo + end + 1
			pattern := r.Text[lo+len(credentialMaskPrefix) : hi-1]
			if f, ok := byPattern[pattern]; ok {
				out = append(out, SkillFinding{File: path, Finding: Finding{Category: f.Category, Pattern: pattern, Start: lo, End: hi,
					Redacted: true, Excerpt: clipExcerpt(lineOf(r.Text, lo, hi)), Why: f.Why, WhyText: f.WhyText}})
			}
			i = hi
		}
		return r.Text
	}
	if md := mask(SkillFileName, c.SkillMD); md != c.SkillMD {
		c.SkillMD = md
		if _, body, ok := SplitFrontMatter(md); ok {
			c.Body = body
		}
		quiet := func(s string) string { return scan(s).Text }
		c.Description, c.License, c.Compatibility = quiet(c.Description), quiet(c.License), quiet(c.Compatibility)
		for k, v := range c.Metadata {
			c.Metadata[k] = quiet(v)
		}
		for i, t := range c.AllowedTools {
			c.AllowedTools[i] = quiet(t)
		}
	}
	for i, f := range c.Files {
		if f.Text() {
			if text := mask(f.Path, string(f.Content)); text != string(f.Content) {
				c.Files[i].Content = []byte(text)
			}
		}
	}
	return out
}

// lineOf is the line of text holding [lo, hi).
func lineOf(text string, lo, hi int) string {
	start := strings.LastIndexByte(text[:lo], '\n') + 1
	end := len(text)
	if n := strings.IndexByte(text[hi:], '\n'); n >= 0 {
		end = hi + n
	}
	return text[start:end]
}

// SkillMasked is a stored version whose credentials were masked after it
// was stored (a version kept before the console masked them): its content
// as it is stored from now on, and its findings with one per mask added.
type SkillMasked struct {
	SkillID int64
	Version int
	Content SkillContent
	// Old is the SKILL.md the masked one replaces; the store refuses the
	// rewrite of a version whose text changed meanwhile.
	Old      string
	Findings []SkillFinding
	// Masks is how many credentials were masked.
	Masks int
}

// MaskStoredVersion masks the credentials scan finds in stored version v
// (MaskSkillCredentials); nil when it holds none, or a forget took its
// text.
func MaskStoredVersion(v *SkillVersion, scan func(text string) GateResult) *SkillMasked {
	if v.Redacted {
		return nil
	}
	c := v.Content
	c.Metadata = maps.Clone(c.Metadata)
	c.AllowedTools = slices.Clone(c.AllowedTools)
	c.Files = slices.Clone(c.Files)
	masks := MaskSkillCredentials(&c, scan)
	if len(masks) == 0 {
		return nil
	}
	return &SkillMasked{SkillID: v.SkillID, Version: v.Version, Content: c, Old: v.Content.SkillMD,
		Findings: append(slices.Clone(v.Findings), masks...), Masks: len(masks)}
}
