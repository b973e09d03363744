package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mnemo-console/mnemo/governance"
	"golang.org/x/crypto/argon2"
)

// Params are the argon2id cost parameters of a password hash.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
	SaltLen uint32
	KeyLen  uint32
}

// DefaultParams follow the OWASP recommendation for argon2id
// (19 MiB, 2 iterations, 1 thread).
var DefaultParams = Params{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// MaxPasswordBytes bounds what is hashed, so a huge form field cannot be used
// to burn CPU.
const MaxPasswordBytes = 1024

// ErrMalformedHash is returned by VerifyPassword for a hash it cannot parse.
var ErrMalformedHash = errors.New("auth: malformed password hash")

// HashPassword hashes password with argon2id and DefaultParams and returns it
// in PHC string format: $argon2id$v=19$m=...,t=...,p=...$salt$hash.
func HashPassword(password string) (string, error) {
	return HashPasswordWith(password, DefaultParams)
}

// HashPasswordWith is HashPassword with explicit cost parameters.
func HashPasswordWith(password string, p Params) (string, error) {
	if len(password) > MaxPasswordBytes {
		return "", fmt.Errorf("auth: password longer than %d bytes", MaxPasswordBytes)
	}
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("auth: read salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// VerifyPassword reports whether password matches the PHC-encoded argon2id
// hash, comparing in constant time.
func VerifyPassword(hash, password string) (bool, error) {
	if len(password) > MaxPasswordBytes {
		return false, nil
	}
	p, salt, key, err := decodeHash(hash)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

func decodeHash(hash string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, nil, nil, ErrMalformedHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return p, nil, nil, ErrMalformedHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil {
		return p, nil, nil, ErrMalformedHash
	}
	// Refuse parameters no hash of ours has, so a tampered row cannot make
	// a login allocate gigabytes.
	if p.Memory == 0 || p.Memory > 1<<20 || p.Time == 0 || p.Time > 16 || p.Threads == 0 {
		return p, nil, nil, ErrMalformedHash
	}
	b64 := base64.RawStdEncoding
	if salt, err = b64.DecodeString(parts[4]); err != nil || len(salt) < 8 {
		return p, nil, nil, ErrMalformedHash
	}
	if key, err = b64.DecodeString(parts[5]); err != nil || len(key) < 16 || len(key) > 64 {
		return p, nil, nil, ErrMalformedHash
	}
	p.SaltLen, p.KeyLen = uint32(len(salt)), uint32(len(key))
	return p, salt, key, nil
}

// dummyHash is verified against when a username does not exist, so a failed
// login takes the same time whether or not the account exists.
// It is computed on first use; crypto/rand never fails (Go 1.24+), so the
// error of a short, fixed password cannot happen.
var dummyHash = sync.OnceValue(func() string {
	h, _ := HashPassword("mnemo-no-such-account")
	return h
})

// VerifyNoAccount burns the same time as VerifyPassword and always fails. Call
// it when the username is unknown.
func VerifyNoAccount(password string) {
	_, _ = VerifyPassword(dummyHash(), password)
}

// GeneratePassword returns a random password with 128 bits of entropy
// (26 characters of base32), for new accounts and resets.
func GeneratePassword() string {
	return strings.ToLower(rand.Text())
}

// HashToken returns the hex SHA-256 of an API token secret; only this hash is
// stored (governance.HashTokenSecret).
func HashToken(secret string) string { return governance.HashTokenSecret(secret) }
