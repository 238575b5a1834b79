#!/usr/bin/env python3
"""Prints an HS256 JWT for one player, as a token service sharing the stack's secret
would sign it: `sub` the player id, `iss`, `aud`, `iat` now, `exp` an hour later.

    SECRET=... ISS=https://issuer.example.com/ AUD=my-game scripts/mint-hs256-token.py alice

The smoke test's --token-command calls it once per player (docs/deploy.md, section 8).
Python's standard library only; for development and tests, not a token service.
"""

import base64
import hashlib
import hmac
import json
import os
import sys
import time


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main(argv):
    if len(argv) != 2 or not argv[1]:
        sys.exit("usage: SECRET=... ISS=... AUD=... scripts/mint-hs256-token.py <player id>")
    missing = [name for name in ("SECRET", "ISS", "AUD") if not os.environ.get(name)]
    if missing:
        sys.exit(f"mint-hs256-token.py: set {', '.join(missing)} (the stack's HS256 secret, JwtIssuer, JwtAudience)")
    now = int(time.time())
    header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = b64(json.dumps({"sub": argv[1], "iss": os.environ["ISS"], "aud": os.environ["AUD"],
                             "iat": now, "exp": now + 3600}).encode())
    signature = hmac.new(os.environ["SECRET"].encode(), f"{header}.{claims}".encode(), hashlib.sha256).digest()
    print(f"{header}.{claims}.{b64(signature)}")


if __name__ == "__main__":
    main(sys.argv)
