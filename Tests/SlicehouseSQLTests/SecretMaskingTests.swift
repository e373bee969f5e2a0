// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseSQL

/// Statement texts kept in the logs hold no secret (`SecretMasking`).
final class SecretMaskingTests: XCTestCase {
    func testPasswordsAndCredentialsBecomeStars() {
        let cases: [(String, String)] = [
            ("create user frank password 'FrankSecret77' createuser", "create user frank password '***' createuser"),
            ("ALTER USER frank PASSWORD 'x''y1Abcdef' VALID UNTIL '2030-01-01'",
             "ALTER USER frank PASSWORD '***' VALID UNTIL '2030-01-01'"),
            ("create user u with password = 'Abcdef12'", "create user u with password = '***'"),
            ("copy t from 's3://b/k' credentials 'aws_access_key_id=AK;aws_secret_access_key=SK' gzip",
             "copy t from 's3://b/k' credentials '***' gzip"),
            ("copy t from 's3://b/k' access_key_id 'AK' secret_access_key 'SK' session_token 'TK'",
             "copy t from 's3://b/k' access_key_id '***' secret_access_key '***' session_token '***'"),
            ("create user u2 password $$Dollar1aB$$", "create user u2 password '***'"),
        ]
        for (text, masked) in cases { XCTAssertEqual(SecretMasking.mask(text), masked, text) }
    }

    func testTextsWithoutSecretsAreUnchanged() {
        for text in ["select 1", "alter user frank password disable", "select 'password' as p -- password",
                     "copy t from '/data/x' delimiter '|'", ""] {
            XCTAssertEqual(SecretMasking.mask(text), text)
        }
    }

    func testTextThatDoesNotLexIsCutAtTheSecretWord() {
        XCTAssertEqual(SecretMasking.mask("create user g password 'Unterminated1"), "create user g password ***")
        XCTAssertEqual(SecretMasking.mask("create user g PASSWORD 'Un\"terminated1 /* x"), "create user g PASSWORD ***")
    }
}
