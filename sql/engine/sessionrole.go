package engine

import (
	"context"
	"errors"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
)

// SET ROLE and SET SESSION AUTHORIZATION are settings ("role",
// "session_authorization"), so SET LOCAL, RESET and a rollback treat them
// as PostgreSQL does; setRole checks a new value and keeps is_superuser,
// which clients are told of, in step with the role now current.
func (s *Session) setRole(name, value string) (string, error) {
	ctx := context.Background()
	if name == "session_authorization" {
		if value != s.user {
			r, err := s.eng.meta.Role(ctx, s.user)
			if err != nil || !r.Superuser {
				return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set session authorization %q", value)
			}
		}
		r, err := s.eng.meta.Role(ctx, value)
		if errors.Is(err, meta.ErrNotFound) {
			return "", pgerr.New(pgerr.InvalidParameterValue, "role %q does not exist", value)
		} else if err != nil {
			return "", err
		}
		s.settings["role"] = "none"
		s.setSuperuserFlag(r.Superuser)
		return value, nil
	}
	who := value
	if value == "none" || value == "" {
		value, who = "none", s.sessionUser()
	}
	r, err := s.eng.meta.Role(ctx, who)
	if errors.Is(err, meta.ErrNotFound) {
		if value == "none" {
			s.setSuperuserFlag(false)
			return value, nil
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "role %q does not exist", value)
	} else if err != nil {
		return "", err
	}
	if value != "none" && who != s.sessionUser() {
		su, err := s.eng.meta.Role(ctx, s.sessionUser())
		if err != nil && !errors.Is(err, meta.ErrNotFound) {
			return "", err
		}
		if !su.Superuser && !s.memberOf(ctx, s.sessionUser(), who, nil) {
			return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set role %q", value)
		}
	}
	s.setSuperuserFlag(r.Superuser)
	return value, nil
}

// setSuperuserFlag sets is_superuser, reported to the client.
func (s *Session) setSuperuserFlag(on bool) {
	v := "off"
	if on {
		v = "on"
	}
	if s.settings["is_superuser"] != v {
		s.settings["is_superuser"] = v
		s.changed = append(s.changed, [2]string{"is_superuser", v})
	}
}

// resetAll is RESET ALL: every setting back to its default but role and
// session_authorization, which PostgreSQL's RESET ALL leaves alone.
func (s *Session) resetAll() {
	for k, v := range defaultSettings(s.user) {
		if k == "role" || k == "session_authorization" {
			continue
		}
		if cur, ok := s.settings[k]; ok && cur != v {
			_ = s.set(k, v)
		}
	}
}

// discardAll is DISCARD ALL's SET SESSION AUTHORIZATION DEFAULT, which
// resets the role too: a pooled connection handed on must not keep the
// last client's role. (PostgreSQL's RESET ALL that follows would go back
// to the startup packet's values, which Loam does not keep, so the other
// settings stay as they were.)
func (s *Session) discardAll() {
	if s.sessionUser() != s.user || s.currentRole() != s.user {
		_ = s.set("session_authorization", s.user)
	}
}
