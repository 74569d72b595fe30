package scram

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

// pg15Verifier is what PostgreSQL 15 stored for
//
//	SET password_encryption = 'scram-sha-256'; CREATE ROLE x PASSWORD 'p';
//	SELECT rolpassword FROM pg_authid WHERE rolname = 'x';
const pg15Verifier = "SCRAM-SHA-256$4096:YHgpAiN5ZwextkPmZ/dsOQ==$cPC7nekUH5tyqL41R8Bn137sPf7izLASR5zgf0exN5c=:lgTuE+monhUQjZNQcepBb2MYqc1VnLeuTdFM07TydEA="

func TestParsePostgresVerifier(t *testing.T) {
	v, err := Parse(pg15Verifier)
	if err != nil {
		t.Fatal(err)
	}
	if !v.VerifyPassword("p") {
		t.Error("PostgreSQL's verifier of 'p' does not verify 'p'")
	}
	for _, wrong := range []string{"", "P", "p ", "pp"} {
		if v.VerifyPassword(wrong) {
			t.Errorf("verifies %q", wrong)
		}
	}
	if got := v.String(); got != pg15Verifier {
		t.Errorf("String() = %s", got)
	}
	// Deriving with PostgreSQL's salt gives PostgreSQL's keys.
	d, err := Derive("p", v.Salt, v.Iterations)
	if err != nil {
		t.Fatal(err)
	}
	if d.String() != pg15Verifier {
		t.Errorf("Derive = %s", d)
	}
}

func TestNewRoundTrip(t *testing.T) {
	v, err := New("s3cr3t pass")
	if err != nil {
		t.Fatal(err)
	}
	text := v.String()
	if !IsVerifier(text) || strings.Contains(text, "s3cr3t") {
		t.Fatalf("verifier %s", text)
	}
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if !p.VerifyPassword("s3cr3t pass") || p.VerifyPassword("s3cr3t") {
		t.Error("parsed verifier checks the wrong passwords")
	}
	if w, _ := New("s3cr3t pass"); w.String() == text {
		t.Error("two verifiers of one password share a salt")
	}
}

func TestIsVerifier(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{pg15Verifier, true},
		{"p", false},
		{"", false},
		{"md5" + strings.Repeat("0", 32), false},
		{"SCRAM-SHA-256$", false},
		{"SCRAM-SHA-256$0:YHgpAiN5ZwextkPmZ/dsOQ==$cPC7nekUH5tyqL41R8Bn137sPf7izLASR5zgf0exN5c=:lgTuE+monhUQjZNQcepBb2MYqc1VnLeuTdFM07TydEA=", false},
		{"SCRAM-SHA-256$4096:YHgpAiN5ZwextkPmZ/dsOQ==$cPC7nekUH5tyqL41R8Bn137sPf7izLASR5zgf0exN5c=", false},
		{"SCRAM-SHA-256$4096:!!$cPC7nekUH5tyqL41R8Bn137sPf7izLASR5zgf0exN5c=:lgTuE+monhUQjZNQcepBb2MYqc1VnLeuTdFM07TydEA=", false},
		{"SCRAM-SHA-256$4096:YHgpAiN5ZwextkPmZ/dsOQ==$cPC7nekUH5tyqL41R8Bn137sPf7izLASR5zgf0exN5c=:AAAA", false},
	} {
		if got := IsVerifier(tc.text); got != tc.want {
			t.Errorf("IsVerifier(%q) = %v", tc.text, got)
		}
	}
}

// TestRFC7677 checks the key derivation, proof and signature against
// RFC 7677 section 3.
func TestRFC7677(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	v, err := Derive("pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	bare := "n=user,r=rOprNGfwEbeRWgbNEkqO"
	serverFirst := "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
	final := "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
	without, proof, err := ParseClientFinal(final, "n,,", "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0")
	if err != nil {
		t.Fatal(err)
	}
	auth := bare + "," + serverFirst + "," + without
	if !v.VerifyProof(auth, proof) {
		t.Error("RFC 7677 client proof does not verify")
	}
	if got := base64.StdEncoding.EncodeToString(v.ServerSignature(auth)); got != "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=" {
		t.Errorf("server signature %s", got)
	}
	for _, bad := range []string{"", "x,,n=,r=a", "p=tls-server-end-point,,n=,r=a", "n,,n=,r=", "n,,r=abc", "n,b,n=,r=a"} {
		if _, _, _, err := ParseClientFirst(bad); err == nil {
			t.Errorf("ParseClientFirst(%q) accepted", bad)
		}
	}
}

// client runs the client's side of an exchange with password.
func client(t *testing.T, e *Exchange, password string) (serverFinal string, ok bool) {
	t.Helper()
	const cnonce = "fyko+d2lbbFgONRv9qkxdawL"
	bare := "n=,r=" + cnonce
	sf, err := e.ServerFirst("n,," + bare)
	if err != nil {
		t.Fatal(err)
	}
	var nonce, salt string
	var iter int
	for _, a := range strings.Split(sf, ",") {
		switch a[:2] {
		case "r=":
			nonce = a[2:]
		case "s=":
			salt = a[2:]
		case "i=":
			for _, c := range a[2:] {
				iter = iter*10 + int(c-'0')
			}
		}
	}
	if !strings.HasPrefix(nonce, cnonce) || len(nonce) == len(cnonce) {
		t.Fatalf("server nonce %q", nonce)
	}
	s, _ := base64.StdEncoding.DecodeString(salt)
	salted, _ := pbkdf2.Key(sha256.New, password, s, iter, 32)
	mac := func(k []byte, m string) []byte { h := hmac.New(sha256.New, k); h.Write([]byte(m)); return h.Sum(nil) }
	clientKey := mac(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	without := "c=biws,r=" + nonce
	sig := mac(stored[:], bare+","+sf+","+without)
	proof := make([]byte, 32)
	for i := range proof {
		proof[i] = clientKey[i] ^ sig[i]
	}
	final, ok, err := e.ServerFinal(without + ",p=" + base64.StdEncoding.EncodeToString(proof))
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		want := "v=" + base64.StdEncoding.EncodeToString(mac(mac(salted, "Server Key"), bare+","+sf+","+without))
		if final != want {
			t.Errorf("server final %q, want %q", final, want)
		}
	}
	return final, ok
}

func TestExchange(t *testing.T) {
	v, err := Parse(pg15Verifier)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := client(t, NewExchange(v), "p"); !ok {
		t.Error("right password refused")
	}
	if _, ok := client(t, NewExchange(v), "q"); ok {
		t.Error("wrong password accepted")
	}
	// A mock exchange fails even for the password that would fit its
	// (zero) keys, and its salt depends only on user and secret.
	m := MockExchange("ghost", []byte("k"))
	if _, ok := client(t, m, ""); ok {
		t.Error("mock exchange succeeded")
	}
	if string(MockExchange("ghost", []byte("k")).v.Salt) != string(m.v.Salt) ||
		string(MockExchange("other", []byte("k")).v.Salt) == string(m.v.Salt) {
		t.Error("mock salt is not a function of the user name")
	}
	if _, _, err := NewExchange(v).ServerFinal("c=biws,r=x,p=AAAA"); err == nil {
		t.Error("client-final before client-first accepted")
	}
}

// TestSASLprep: verifiers PostgreSQL 15 made for passwords SASLprep
// changes (or refuses) check what the user typed, as in PostgreSQL:
//
//	SET password_encryption = 'scram-sha-256';
//	CREATE ROLE sp1 PASSWORD E'I\u00ADX'; …
func TestSASLprep(t *testing.T) {
	for _, tc := range []struct {
		verifier string
		ok, bad  []string
	}{
		// soft hyphen: mapped to nothing
		{"SCRAM-SHA-256$4096:Pdz6Lf/bnTM36PpBe65qkA==$yBP7vL81YuRzb7y3/rva4qgFabW/DJEpYkBmDZKzUlg=:KGKrIYUggrFDkEYJiEbvb7E1g4mDeWZ0F91dkBCAkdo=",
			[]string{"I\u00adX", "IX"}, []string{"I-X"}},
		// ROMAN NUMERAL NINE: NFKC makes it IX
		{"SCRAM-SHA-256$4096:THl20B5YjyUmkrhnt8x2Fw==$ZuPozZHKRlECXcG/Q7JSAcw+RrZS5vgoWWcMaaHVkao=:De9iiWAOkqvjtujEBryWfNaVnT2z/ekmggMW8JgFh5s=",
			[]string{"\u2168", "IX"}, []string{"\u2169"}},
		// no-break space: a space
		{"SCRAM-SHA-256$4096:SEcNVracgGwU8ZD6M9P0BQ==$6s99Elzcmu/IQyhdg1mYznpuAsi1qhdbZluQHnoR4lI=:bjsDS0RPuf8IlRKpTLqtPC+JeBK8BOj/eA1keZ/ttmY=",
			[]string{"a\u00a0b", "a b"}, []string{"ab"}},
		// precomposed and decomposed ä are one password
		{"SCRAM-SHA-256$4096:lGtYxd8ZYRdK8JADswf6Mg==$8KnT8PpqerjMMVA0TyEoycldZ6rhDkdwfspwgMyDj3w=:Ys/HsRXGpqEG0XvHDhd4fXKNA4kzHZYfsguQj0SKiqE=",
			[]string{"p\u00e4ss", "pa\u0308ss"}, []string{"pass"}},
		{"SCRAM-SHA-256$4096:Saunc+7dliYEFY4kyxFXfQ==$94ukpCdCpGgJ8RjfmPxz1wt2TMNuYHjo/yU9nUna2xQ=:yBAgnB6bAkonOU5vXKvQSu/llo/qGGgXaxYlc4YgFzA=",
			[]string{"p\u00e4ss", "pa\u0308ss"}, nil},
		// a soft hyphen alone maps to nothing: refused, so used as given
		{"SCRAM-SHA-256$4096:y/DwSi8r6KO9GjW2baxJhg==$MxI1k+swRnM0StjSaoRNlLzUqIOrba45SFsfZRz+e0g=:+4yp60HGAafJ3OKsla1rMRZJvB+RSutWovbgT5CQOMk=",
			[]string{"\u00ad"}, []string{""}},
		// Hebrew and Latin mixed: refused by the bidi rule, used as given
		{"SCRAM-SHA-256$4096:HkqfD6HW5yVDega0reDpeQ==$mnoKwulKUcGk+ellGLvcWagVQh/RVaTbo2nQtB75aoo=:gtJ8n4Q6dvG3sSdWkx0h/6O7iwavPzMitZ3zH14540I=",
			[]string{"\u05d0a"}, nil},
		// ASCII is used as is, control characters and all
		{"SCRAM-SHA-256$4096:+mSSW7T2+KHhM3ax/8QYzw==$+/IE/v5L2pwNdRfEPFbljFLSQjcdW8xoNWlfE2Hb+NU=:upOmMBWatKpINNEOxScORu7AGwaM8tqLiaGa/6qbP5Y=",
			[]string{"a\u0007b"}, []string{"ab"}},
	} {
		v, err := Parse(tc.verifier)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range tc.ok {
			if !v.VerifyPassword(p) {
				t.Errorf("%q does not verify against PostgreSQL's verifier", p)
			}
		}
		for _, p := range tc.bad {
			if v.VerifyPassword(p) {
				t.Errorf("%q verifies", p)
			}
		}
	}
	// What SASLprep refuses is used as given.
	for _, p := range []string{"\u00e4\u0007", "\ue000x", "\u05d0a", "\u00ad"} {
		if got := saslprep(p); got != p {
			t.Errorf("saslprep(%q) = %q, want it unchanged", p, got)
		}
	}
}
