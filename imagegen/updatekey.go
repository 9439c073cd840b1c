package imagegen

import (
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"time"
)

// The key that signs an update test's bundle is made for the test and
// signs nothing else: it is derived from the case's name, so that two
// builds of a spec carry the same key, certificate and bundle, byte for
// byte. It is no secret (anyone can derive it); a product's bundles are
// signed with the product's own key. RSA, as RAUC 1.8 signs with it
// (not Ed25519), and PKCS #1 v1.5 signatures, which are deterministic.

// testKey derives a 2048-bit RSA key from name.
func testKey(name string) (*rsa.PrivateKey, error) {
	seed := sha256.Sum256([]byte("fsbench update test key\x00" + name))
	src := rand.NewChaCha8(seed)
	e := big.NewInt(65537)
	prime := func() *big.Int {
		buf := make([]byte, 128)
		one := big.NewInt(1)
		for {
			for i := 0; i < len(buf); i += 8 {
				binary.LittleEndian.PutUint64(buf[i:], src.Uint64())
			}
			buf[0] |= 0xc0 // the top two bits: p*q has 2048 bits
			buf[len(buf)-1] |= 1
			p := new(big.Int).SetBytes(buf)
			if p.ProbablyPrime(32) && new(big.Int).GCD(nil, nil, e, new(big.Int).Sub(p, one)).Cmp(one) == 0 {
				return p
			}
		}
	}
	p, q := prime(), prime()
	if p.Cmp(q) == 0 {
		return nil, errors.New("the derived primes are equal")
	}
	one := big.NewInt(1)
	phi := new(big.Int).Mul(new(big.Int).Sub(p, one), new(big.Int).Sub(q, one))
	d := new(big.Int).ModInverse(e, phi)
	if d == nil {
		return nil, errors.New("the derived key has no private exponent")
	}
	k := &rsa.PrivateKey{PublicKey: rsa.PublicKey{N: new(big.Int).Mul(p, q), E: 65537}, D: d, Primes: []*big.Int{p, q}}
	k.Precompute()
	return k, k.Validate()
}

// testCert is the key's self-signed certificate, valid from the build's
// epoch for a hundred years.
func testCert(k *rsa.PrivateKey, epoch int64) ([]byte, error) {
	from := time.Unix(epoch, 0).UTC()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "fsbench update test"},
		NotBefore:    from,
		NotAfter:     from.AddDate(100, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		// SWUpdate checks this purpose by default.
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageEmailProtection},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		return nil, fmt.Errorf("the test certificate: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// keyPEM is the key as openssl reads it.
func keyPEM(k *rsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}
