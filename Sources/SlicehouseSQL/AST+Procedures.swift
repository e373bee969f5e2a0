// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Stored procedure statements (Redshift's `CREATE PROCEDURE ... LANGUAGE plpgsql`, CALL,
/// DROP PROCEDURE, SHOW PROCEDURE, ALTER PROCEDURE). One `Statement` case holds them all.
public enum ProcedureStatement: Sendable, Hashable {
    case create(CreateProcedure)
    case drop(DropProcedure)
    case call(CallProcedure)
    /// `SHOW PROCEDURE name [(types)]`: the definition.
    case show(ProcedureReference)
    /// `ALTER PROCEDURE name(types) RENAME TO new`.
    case rename(ProcedureReference, to: String)
    /// `ALTER PROCEDURE name(types) OWNER TO user`.
    case owner(ProcedureReference, to: String)
}

/// A procedure argument's mode.
public enum ParameterMode: String, Sendable, Hashable, Codable {
    case `in` = "IN"
    case out = "OUT"
    case `inout` = "INOUT"

    /// IN and INOUT arguments are passed by CALL and make up the signature.
    public var isInput: Bool { self != .out }
    /// OUT and INOUT arguments are returned by CALL.
    public var isOutput: Bool { self != .in }
}

/// `[argname] [argmode] argtype` (name and mode in either order).
public struct ProcedureParameter: Sendable, Hashable {
    public var name: String?
    public var mode: ParameterMode
    public var type: DataType

    public init(name: String?, mode: ParameterMode, type: DataType) {
        self.name = name; self.mode = mode; self.type = type
    }
}

/// `CREATE [OR REPLACE] PROCEDURE name ([params]) [NONATOMIC] AS $$ body $$ LANGUAGE plpgsql
/// [SECURITY INVOKER | SECURITY DEFINER] [SET config {TO | =} value]`. The body was
/// checked for PL/pgSQL syntax when the statement was parsed (`block`).
public struct CreateProcedure: Sendable, Hashable {
    public var name: ObjectName
    public var orReplace: Bool
    public var parameters: [ProcedureParameter]
    public var nonatomic: Bool
    public var body: String
    public var language: String
    public var securityDefiner: Bool
    /// `SET name TO value` settings applied while the procedure runs.
    public var settings: [String: String]
    @IgnoredInComparison public var location: SourceLocation

    public init(name: ObjectName, orReplace: Bool, parameters: [ProcedureParameter], nonatomic: Bool, body: String,
                language: String, securityDefiner: Bool, settings: [String: String], location: SourceLocation = .unknown) {
        self.name = name; self.orReplace = orReplace; self.parameters = parameters; self.nonatomic = nonatomic
        self.body = body; self.language = language; self.securityDefiner = securityDefiner; self.settings = settings
        self.location = location
    }

    /// The signature: the types of the IN and INOUT arguments.
    public var inputTypes: [DataType] { parameters.filter { $0.mode.isInput }.map(\.type) }
}

/// A procedure named in DROP / SHOW / ALTER: its name and, when parentheses were written,
/// its input argument types (OUT arguments listed there are ignored).
public struct ProcedureReference: Sendable, Hashable {
    public var name: ObjectName
    public var inputTypes: [DataType]?
    public init(name: ObjectName, inputTypes: [DataType]?) { self.name = name; self.inputTypes = inputTypes }
}

/// `DROP PROCEDURE [IF EXISTS] name [( [[argname] [argmode] argtype, ...] )]`.
public struct DropProcedure: Sendable, Hashable {
    public var procedure: ProcedureReference
    public var ifExists: Bool
    public init(procedure: ProcedureReference, ifExists: Bool) { self.procedure = procedure; self.ifExists = ifExists }
}

/// `CALL name(args)`: the IN and INOUT arguments, in order.
public struct CallProcedure: Sendable, Hashable {
    public var name: ObjectName
    public var arguments: [Expr]
    @IgnoredInComparison public var location: SourceLocation
    public init(name: ObjectName, arguments: [Expr], location: SourceLocation = .unknown) {
        self.name = name; self.arguments = arguments; self.location = location
    }
}
