package governance

// MaxSlugLen is the longest project slug.
const MaxSlugLen = 64

// ValidateSlug checks a new project's slug: 1 to MaxSlugLen characters,
// lowercase ASCII letters, digits and hyphens, starting with a letter or a
// digit. Slugs appear in URLs, file names and command lines as they are.
// Every place that creates a project checks it through this function.
func ValidateSlug(slug string) error {
	if slug == "" {
		return Errorf(EINVALID, "A project needs a slug.")
	}
	if len(slug) > MaxSlugLen {
		return Errorf(EINVALID, "Project slug %.20q… is longer than %d characters.", slug, MaxSlugLen)
	}
	for i := 0; i < len(slug); i++ {
		c := slug[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0:
		default:
			return Errorf(EINVALID, "Project slug %q is not valid: use lowercase letters, digits and hyphens, starting with a letter or a digit.", slug)
		}
	}
	return nil
}
