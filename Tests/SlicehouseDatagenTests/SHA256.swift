// SPDX-License-Identifier: Apache-2.0
/// SHA-256 (FIPS 180-4), streaming, for checking generated tables against
/// reference checksums without depending on a system tool.
///
/// Written over raw pointers and plain loops so that hashing megabytes stays
/// quick in the unoptimized builds tests run in.
struct SHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private var state: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]
    /// A partial block carried between `update` calls.
    private var pending: [UInt8] = []
    private var totalBytes: UInt64 = 0

    init() {}

    /// The hex digest of `bytes`.
    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hasher = SHA256()
        let array = Array(bytes)
        array.withUnsafeBufferPointer { hasher.update($0) }
        return hasher.finalizeHex()
    }

    mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, bytes.count > 0 else { return }
        totalBytes &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: UnsafeBufferPointer(start: start, count: take))
            offset = take
            if pending.count == 64 {
                let block = pending
                block.withUnsafeBufferPointer { buffer in
                    if let base = buffer.baseAddress { compress(blocks: base, count: 1) }
                }
                pending.removeAll(keepingCapacity: true)
            }
        }
        let whole = (bytes.count - offset) / 64
        if whole > 0 {
            compress(blocks: start + offset, count: whole)
            offset += whole * 64
        }
        if offset < bytes.count {
            pending.append(contentsOf: UnsafeBufferPointer(start: start + offset, count: bytes.count - offset))
        }
    }

    mutating func finalizeHex() -> String {
        let bitLength = totalBytes &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        tail.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { compress(blocks: base, count: buffer.count / 64) }
        }
        pending.removeAll()
        let digits = Array("0123456789abcdef")
        var result = ""
        for word in state {
            for shift in stride(from: 28, through: 0, by: -4) { result.append(digits[Int((word >> UInt32(shift)) & 0xF)]) }
        }
        return result
    }

    private mutating func compress(blocks: UnsafePointer<UInt8>, count: Int) {
        let schedule = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
        let constants = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
        let hash = UnsafeMutablePointer<UInt32>.allocate(capacity: 8)
        defer {
            schedule.deallocate()
            constants.deallocate()
            hash.deallocate()
        }
        constants.initialize(from: SHA256.roundConstants, count: 64)
        hash.initialize(from: state, count: 8)

        var block = 0
        while block < count {
            let bytes = blocks + block * 64
            var t = 0
            while t < 16 {
                let p = bytes + t * 4
                schedule[t] = UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
                t += 1
            }
            while t < 64 {
                let w15 = schedule[t - 15]
                let w2 = schedule[t - 2]
                let s0 = (w15 >> 7 | w15 << 25) ^ (w15 >> 18 | w15 << 14) ^ (w15 >> 3)
                let s1 = (w2 >> 17 | w2 << 15) ^ (w2 >> 19 | w2 << 13) ^ (w2 >> 10)
                schedule[t] = schedule[t - 16] &+ s0 &+ schedule[t - 7] &+ s1
                t += 1
            }
            var a = hash[0], b = hash[1], c = hash[2], d = hash[3]
            var e = hash[4], f = hash[5], g = hash[6], h = hash[7]
            t = 0
            while t < 64 {
                let sum1 = (e >> 6 | e << 26) ^ (e >> 11 | e << 21) ^ (e >> 25 | e << 7)
                let choice = (e & f) ^ (~e & g)
                let temp1 = h &+ sum1 &+ choice &+ constants[t] &+ schedule[t]
                let sum0 = (a >> 2 | a << 30) ^ (a >> 13 | a << 19) ^ (a >> 22 | a << 10)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temp2 = sum0 &+ majority
                h = g; g = f; f = e; e = d &+ temp1
                d = c; c = b; b = a; a = temp1 &+ temp2
                t += 1
            }
            hash[0] &+= a; hash[1] &+= b; hash[2] &+= c; hash[3] &+= d
            hash[4] &+= e; hash[5] &+= f; hash[6] &+= g; hash[7] &+= h
            block += 1
        }
        for index in 0..<8 { state[index] = hash[index] }
    }
}
