// SPDX-License-Identifier: Apache-2.0
/// The word lists and weights of TPC-H's `dists.dss`, as data.
///
/// Each list is `(value, weight)` in file order; order matters, because a
/// weighted pick maps a random number onto the running sum of the weights in
/// this order. Lists that are pure cross products (part types, containers) are
/// built from their syllables in the same nested order as the file.
enum DistributionData {
    // MARK: Table values

    /// Nations with their region adjustment. The running sum of the weights is
    /// the nation's region key (a dbgen trick: these are not probabilities).
    static let nations: [(String, Int)] = [
        ("ALGERIA", 0), ("ARGENTINA", 1), ("BRAZIL", 0), ("CANADA", 0), ("EGYPT", 3),
        ("ETHIOPIA", -4), ("FRANCE", 3), ("GERMANY", 0), ("INDIA", -1), ("INDONESIA", 0),
        ("IRAN", 2), ("IRAQ", 0), ("JAPAN", -2), ("JORDAN", 2), ("KENYA", -4),
        ("MOROCCO", 0), ("MOZAMBIQUE", 0), ("PERU", 1), ("CHINA", 1), ("ROMANIA", 1),
        ("SAUDI ARABIA", 1), ("VIETNAM", -2), ("RUSSIA", 1), ("UNITED KINGDOM", 0), ("UNITED STATES", -2),
    ]

    static let regions: [(String, Int)] = [
        ("AFRICA", 1), ("AMERICA", 1), ("ASIA", 1), ("EUROPE", 1), ("MIDDLE EAST", 1),
    ]

    static let marketSegments: [(String, Int)] = [
        ("AUTOMOBILE", 1), ("BUILDING", 1), ("FURNITURE", 1), ("HOUSEHOLD", 1), ("MACHINERY", 1),
    ]

    static let orderPriorities: [(String, Int)] = [
        ("1-URGENT", 1), ("2-HIGH", 1), ("3-MEDIUM", 1), ("4-NOT SPECIFIED", 1), ("5-LOW", 1),
    ]

    static let shipInstructions: [(String, Int)] = [
        ("DELIVER IN PERSON", 1), ("COLLECT COD", 1), ("TAKE BACK RETURN", 1), ("NONE", 1),
    ]

    static let shipModes: [(String, Int)] = [
        ("REG AIR", 1), ("AIR", 1), ("RAIL", 1), ("TRUCK", 1), ("MAIL", 1), ("FOB", 1), ("SHIP", 1),
    ]

    static let returnFlags: [(String, Int)] = [("R", 1), ("A", 1)]

    /// `p_cntr`: size × kind, 40 values of weight 1.
    static let containers: [(String, Int)] = {
        let sizes = ["SM", "LG", "MED", "JUMBO", "WRAP"]
        let kinds = ["CASE", "BOX", "BAG", "JAR", "PACK", "PKG", "CAN", "DRUM"]
        return sizes.flatMap { size in kinds.map { ("\(size) \($0)", 1) } }
    }()

    /// `p_types`: class × finish × metal, 150 values of weight 1.
    static let partTypes: [(String, Int)] = {
        let classes = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"]
        let finishes = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"]
        let metals = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"]
        return classes.flatMap { c in finishes.flatMap { f in metals.map { ("\(c) \(f) \($0)", 1) } } }
    }()

    /// `colors`: the words of part names (picked without weights, by shuffling).
    static let colors: [String] = [
        "almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue",
        "blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral",
        "cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick",
        "floral", "forest", "frosted", "gainsboro", "ghost", "goldenrod", "green", "grey", "honeydew",
        "hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon", "light", "lime", "linen",
        "magenta", "maroon", "medium", "metallic", "midnight", "mint", "misty", "moccasin", "navajo",
        "navy", "olive", "orange", "orchid", "pale", "papaya", "peach", "peru", "pink", "plum", "powder",
        "puff", "purple", "red", "rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell",
        "sienna", "sky", "slate", "smoke", "snow", "spring", "steel", "tan", "thistle", "tomato",
        "turquoise", "violet", "wheat", "white", "yellow",
    ]

    // MARK: Text grammar vocabulary

    static let nouns: [(String, Int)] = [
        ("packages", 40), ("requests", 40), ("accounts", 40), ("deposits", 40), ("foxes", 20),
        ("ideas", 20), ("theodolites", 20), ("pinto beans", 20), ("instructions", 20),
        ("dependencies", 10), ("excuses", 10), ("platelets", 10), ("asymptotes", 10), ("courts", 5),
        ("dolphins", 5), ("multipliers", 1), ("sauternes", 1), ("warthogs", 1), ("frets", 1),
        ("dinos", 1), ("attainments", 1), ("somas", 1), ("Tiresias", 1), ("patterns", 1), ("forges", 1),
        ("braids", 1), ("frays", 1), ("warhorses", 1), ("dugouts", 1), ("notornis", 1), ("epitaphs", 1),
        ("pearls", 1), ("tithes", 1), ("waters", 1), ("orbits", 1), ("gifts", 1), ("sheaves", 1),
        ("depths", 1), ("sentiments", 1), ("decoys", 1), ("realms", 1), ("pains", 1), ("grouches", 1),
        ("escapades", 1), ("hockey players", 1),
    ]

    static let verbs: [(String, Int)] = [
        ("sleep", 20), ("wake", 20), ("are", 20), ("cajole", 20), ("haggle", 20), ("nag", 10),
        ("use", 10), ("boost", 10), ("affix", 5), ("detect", 5), ("integrate", 5), ("maintain", 1),
        ("nod", 1), ("was", 1), ("lose", 1), ("sublate", 1), ("solve", 1), ("thrash", 1), ("promise", 1),
        ("engage", 1), ("hinder", 1), ("print", 1), ("x-ray", 1), ("breach", 1), ("eat", 1), ("grow", 1),
        ("impress", 1), ("mold", 1), ("poach", 1), ("serve", 1), ("run", 1), ("dazzle", 1),
        ("snooze", 1), ("doze", 1), ("unwind", 1), ("kindle", 1), ("play", 1), ("hang", 1),
        ("believe", 1), ("doubt", 1),
    ]

    static let adverbs: [(String, Int)] = [
        ("sometimes", 1), ("always", 1), ("never", 1), ("furiously", 50), ("slyly", 50),
        ("carefully", 50), ("blithely", 40), ("quickly", 30), ("fluffily", 20), ("slowly", 1),
        ("quietly", 1), ("ruthlessly", 1), ("thinly", 1), ("closely", 1), ("doggedly", 1),
        ("daringly", 1), ("bravely", 1), ("stealthily", 1), ("permanently", 1), ("enticingly", 1),
        ("idly", 1), ("busily", 1), ("regularly", 1), ("finally", 1), ("ironically", 1), ("evenly", 1),
        ("boldly", 1), ("silently", 1),
    ]

    static let articles: [(String, Int)] = [("the", 50), ("a", 20), ("an", 5)]

    static let prepositions: [(String, Int)] = [
        ("about", 50), ("above", 50), ("according to", 50), ("across", 50), ("after", 50),
        ("against", 40), ("along", 40), ("alongside of", 30), ("among", 30), ("around", 20), ("at", 10),
        ("atop", 1), ("before", 1), ("behind", 1), ("beneath", 1), ("beside", 1), ("besides", 1),
        ("between", 1), ("beyond", 1), ("by", 1), ("despite", 1), ("during", 1), ("except", 1),
        ("for", 1), ("from", 1), ("in place of", 1), ("inside", 1), ("instead of", 1), ("into", 1),
        ("near", 1), ("of", 1), ("on", 1), ("outside", 1), ("over", 1), ("past", 1), ("since", 1),
        ("through", 1), ("throughout", 1), ("to", 1), ("toward", 1), ("under", 1), ("until", 1),
        ("up", 1), ("upon", 1), ("whithout", 1), ("with", 1), ("within", 1),
    ]

    static let auxiliaries: [(String, Int)] = [
        ("do", 1), ("may", 1), ("might", 1), ("shall", 1), ("will", 1), ("would", 1), ("can", 1),
        ("could", 1), ("should", 1), ("ought to", 1), ("must", 1), ("will have to", 1),
        ("shall have to", 1), ("could have to", 1), ("should have to", 1), ("must have to", 1),
        ("need to", 1), ("try to", 1),
    ]

    static let terminators: [(String, Int)] = [
        (".", 50), (";", 1), (":", 1), ("?", 1), ("!", 1), ("--", 1),
    ]

    static let adjectives: [(String, Int)] = [
        ("special", 20), ("pending", 20), ("unusual", 20), ("express", 20), ("furious", 1), ("sly", 1),
        ("careful", 1), ("blithe", 1), ("quick", 1), ("fluffy", 1), ("slow", 1), ("quiet", 1),
        ("ruthless", 1), ("thin", 1), ("close", 1), ("dogged", 1), ("daring", 1), ("brave", 1),
        ("stealthy", 1), ("permanent", 1), ("enticing", 1), ("idle", 1), ("busy", 1), ("regular", 50),
        ("final", 40), ("ironic", 40), ("even", 30), ("bold", 20), ("silent", 10),
    ]

    // MARK: Text grammar productions

    /// Sentences: N = noun phrase, V = verb phrase, P = prepositional phrase,
    /// T = terminator.
    static let grammar: [(String, Int)] = [
        ("N V T", 3), ("N V P T", 3), ("N V N T", 3), ("N P V N T", 1), ("N P V P T", 1),
    ]

    /// Noun phrases: N = noun, J = adjective, D = adverb; a comma attaches to
    /// the word before it.
    static let nounPhrases: [(String, Int)] = [
        ("N", 10), ("J N", 20), ("J, J N", 10), ("D J N", 50),
    ]

    /// Verb phrases: V = verb, X = auxiliary, D = adverb.
    static let verbPhrases: [(String, Int)] = [
        ("V", 30), ("X V", 1), ("V D", 40), ("X V D", 1),
    ]
}
