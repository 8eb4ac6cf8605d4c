"""The settings of the site processes the tests start (`tests/conftest.py`'s
`subprocess_env`): the site's own, but for how passwords are hashed.

PBKDF2 costs ~0.4 s a password on this machine, paid by every account a browser test
registers or logs in. The test process hashes with MD5 (`_test_settings`), and so do the
sites it starts: a password made in one verifies in the other. Never a production setting:
only the tests name this module.
"""

from jinro_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
