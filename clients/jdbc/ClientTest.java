// ClientTest drives a server through PgJDBC with its default settings, the
// way an application would. It takes a JDBC URL, prints one line per check,
// and exits 1 at the first failed one. The same program runs against Loam
// and PostgreSQL 15 (clients/jdbc_test.go), so what it expects is what
// PostgreSQL answers.

import java.math.BigDecimal;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Objects;
import java.util.TimeZone;
import java.util.UUID;
import org.postgresql.PGStatement;

public class ClientTest {
    static int checks;

    static void check(String what, Object got, Object want) {
        checks++;
        boolean ok = (got instanceof byte[] && want instanceof byte[])
                ? Arrays.equals((byte[]) got, (byte[]) want)
                : Objects.equals(got, want);
        if (!ok) {
            throw new AssertionError(what + ": got " + show(got) + ", want " + show(want));
        }
        System.out.println("ok " + what + " = " + show(got));
    }

    static String show(Object o) {
        if (o instanceof byte[]) {
            return Arrays.toString((byte[]) o);
        }
        return o == null ? "null" : o + " (" + o.getClass().getSimpleName() + ")";
    }

    static final UUID ID1 = UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    static final UUID ID2 = UUID.fromString("00000000-0000-0000-0000-000000000002");
    static final OffsetDateTime TSTZ1 = OffsetDateTime.of(2026, 11, 29, 10, 30, 15, 123456000, ZoneOffset.UTC);
    static final OffsetDateTime TSTZ2 = OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 0, ZoneOffset.ofHours(2));

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: ClientTest jdbc:postgresql://host:port/db?user=...");
            System.exit(2);
        }
        try (Connection c = DriverManager.getConnection(args[0])) {
            run(c);
        } catch (Throwable e) {
            System.out.println("FAIL after " + checks + " checks: " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
        System.out.println("PASS " + checks + " checks");
    }

    static void run(Connection c) throws Exception {
        DatabaseMetaData md = c.getMetaData();
        System.out.println("server " + md.getDatabaseProductName() + " " + md.getDatabaseProductVersion());
        check("product name", md.getDatabaseProductName(), "PostgreSQL");
        check("major version", md.getDatabaseMajorVersion(), 15);
        check("autocommit by default", c.getAutoCommit(), true);

        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE jdbc_t (i INT, l BIGINT, s SMALLINT, d DOUBLE PRECISION, f REAL,"
                    + " n NUMERIC(12,3), b BOOLEAN, t TEXT, dt DATE, ts TIMESTAMP, tz TIMESTAMPTZ,"
                    + " u UUID, by BYTEA)");
        }

        String ins = "INSERT INTO jdbc_t (i, l, s, d, f, n, b, t, dt, ts, tz, u, by)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        try (PreparedStatement ps = c.prepareStatement(ins)) {
            ps.setInt(1, 42);
            ps.setLong(2, 9_000_000_000L);
            ps.setShort(3, (short) -7);
            ps.setDouble(4, 2.5);
            ps.setFloat(5, 1.25f);
            ps.setBigDecimal(6, new BigDecimal("12345.678"));
            ps.setBoolean(7, true);
            ps.setString(8, "héllo 'world'");
            ps.setDate(9, Date.valueOf("2026-11-29"));
            ps.setTimestamp(10, Timestamp.valueOf("2026-11-29 10:30:15.123456"));
            ps.setObject(11, TSTZ1);
            ps.setObject(12, ID1);
            ps.setBytes(13, new byte[] {0, 1, 2, (byte) 0xff});
            check("insert count", ps.executeUpdate(), 1);

            ps.setInt(1, 7);
            ps.setLong(2, -1L);
            ps.setShort(3, Short.MAX_VALUE);
            ps.setDouble(4, -0.125);
            ps.setFloat(5, 3.5f);
            ps.setBigDecimal(6, new BigDecimal("-0.5"));
            ps.setBoolean(7, false);
            ps.setString(8, "second");
            ps.setDate(9, Date.valueOf("2000-01-01"));
            ps.setTimestamp(10, Timestamp.valueOf("1999-12-31 23:59:59"));
            ps.setObject(11, TSTZ2);
            ps.setObject(12, ID2);
            ps.setBytes(13, new byte[0]);
            check("insert count 2", ps.executeUpdate(), 1);

            for (int k = 1; k <= 13; k++) {
                ps.setNull(k, java.sql.Types.NULL);
            }
            ps.setInt(1, 0);
            check("insert nulls", ps.executeUpdate(), 1);
        }

        // Every parameter type in a WHERE clause, and every column read back.
        String sel = "SELECT i, l, s, d, f, n, b, t, dt, ts, tz, u, by FROM jdbc_t"
                + " WHERE i = ? AND l = ? AND s = ? AND d = ? AND f = ? AND n = ? AND b = ? AND t = ?"
                + " AND dt = ? AND ts = ? AND tz = ? AND u = ? AND by = ?";
        try (PreparedStatement ps = c.prepareStatement(sel)) {
            ps.setInt(1, 42);
            ps.setLong(2, 9_000_000_000L);
            ps.setShort(3, (short) -7);
            ps.setDouble(4, 2.5);
            ps.setFloat(5, 1.25f);
            ps.setBigDecimal(6, new BigDecimal("12345.678"));
            ps.setBoolean(7, true);
            ps.setString(8, "héllo 'world'");
            ps.setDate(9, Date.valueOf("2026-11-29"));
            ps.setTimestamp(10, Timestamp.valueOf("2026-11-29 10:30:15.123456"));
            ps.setObject(11, TSTZ1);
            ps.setObject(12, ID1);
            ps.setBytes(13, new byte[] {0, 1, 2, (byte) 0xff});
            try (ResultSet rs = ps.executeQuery()) {
                check("row found", rs.next(), true);
                checkRow1(rs, "select");
                // Executed once, unnamed: results come in text format,
                // which getString returns as the server wrote it.
                String[] text = {"42", "9000000000", "-7", "2.5", "1.25", "12345.678", "t", "héllo 'world'",
                    "2026-11-29", "2026-11-29 10:30:15.123456", null, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
                    "\\x000102ff"};
                // timestamptz prints in the session's TimeZone, the JVM's.
                switch (TimeZone.getDefault().getID()) {
                    case "UTC":
                        text[10] = "2026-11-29 10:30:15.123456+00";
                        break;
                    case "America/New_York":
                        text[10] = "2026-11-29 05:30:15.123456-05";
                        break;
                    default:
                }
                for (int col = 1; col <= text.length; col++) {
                    if (text[col - 1] != null) {
                        check("select text col " + col, rs.getString(col), text[col - 1]);
                    }
                }
                check("one row", rs.next(), false);
            }
        }

        // Past prepareThreshold (5) the driver names the statement on the
        // server and, having described it once, binds it with binary result
        // formats and no Describe: each execution must decode the same.
        String byId = "SELECT i, l, s, d, f, n, b, t, dt, ts, tz, u, by FROM jdbc_t WHERE i = ?";
        try (PreparedStatement ps = c.prepareStatement(byId)) {
            for (int k = 1; k <= 8; k++) {
                ps.setInt(1, 42);
                try (ResultSet rs = ps.executeQuery()) {
                    check("exec " + k + " row", rs.next(), true);
                    checkRow1(rs, "exec " + k);
                    check("exec " + k + " one row", rs.next(), false);
                }
                ps.setInt(1, 7);
                try (ResultSet rs = ps.executeQuery()) {
                    check("exec " + k + " row 2", rs.next(), true);
                    checkRow2(rs, "exec " + k + " row 2");
                }
                // The driver counts executions; after the 5th it names the
                // statement on the server.
                check("exec " + k + " server-prepared", ps.unwrap(PGStatement.class).isUseServerPrepare(), 3 * k - 1 >= 5);
                ps.setInt(1, 0);
                try (ResultSet rs = ps.executeQuery()) {
                    check("exec " + k + " nulls", rs.next(), true);
                    for (int col = 2; col <= 13; col++) {
                        rs.getObject(col);
                        check("exec " + k + " col " + col + " null", rs.wasNull(), true);
                    }
                }
            }
        }

        // An expression result type chosen by the server, re-executed too.
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT count(*), sum(l), max(tz), min(dt) FROM jdbc_t WHERE i >= ?")) {
            for (int k = 1; k <= 7; k++) {
                ps.setInt(1, 1);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    check("agg " + k + " count", rs.getLong(1), 2L);
                    check("agg " + k + " sum", rs.getBigDecimal(2), new BigDecimal("8999999999"));
                    check("agg " + k + " max tz", rs.getObject(3, OffsetDateTime.class).toInstant(), TSTZ1.toInstant());
                    check("agg " + k + " min dt", rs.getDate(4), Date.valueOf("2000-01-01"));
                }
            }
        }

        // An error carries its SQLSTATE, and the connection goes on.
        try (Statement s = c.createStatement()) {
            expectError(() -> s.executeQuery("SELECT 1/0"), "22012");
            expectError(() -> s.executeQuery("SELECT * FROM no_such_table"), "42P01");
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM jdbc_t")) {
                rs.next();
                check("usable after error", rs.getLong(1), 3L);
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT 10 / ?")) {
            for (int k = 1; k <= 7; k++) {
                ps.setInt(1, k % 2 == 0 ? 0 : 5);
                if (k % 2 == 0) {
                    expectError(ps::executeQuery, "22012");
                } else {
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        check("prepared after error " + k, rs.getInt(1), 2);
                    }
                }
            }
        }

        // java.sql.Time and the java.time classes, text then binary.
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE jdbc_time (k INT, lt TIME, ld DATE, ldt TIMESTAMP)");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jdbc_time VALUES (?, ?, ?, ?)")) {
            ps.setInt(1, 1);
            ps.setTime(2, Time.valueOf("10:30:15"));
            ps.setObject(3, LocalDate.of(2026, 11, 29));
            ps.setObject(4, LocalDateTime.of(2026, 11, 29, 10, 30, 15, 123456000));
            check("insert time", ps.executeUpdate(), 1);
            ps.setInt(1, 2);
            ps.setObject(2, LocalTime.of(23, 59, 59, 999999000));
            ps.setDate(3, Date.valueOf("1999-12-31"));
            ps.setObject(4, LocalDateTime.of(2000, 1, 1, 0, 0));
            check("insert time 2", ps.executeUpdate(), 1);
        }
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT lt, ld, ldt FROM jdbc_time WHERE lt = ? OR ld = ? OR ldt = ? ORDER BY k")) {
            for (int k = 1; k <= 7; k++) {
                ps.setTime(1, Time.valueOf("10:30:15"));
                ps.setObject(2, LocalDate.of(1999, 12, 31));
                ps.setObject(3, LocalDateTime.of(2000, 1, 1, 0, 0));
                try (ResultSet rs = ps.executeQuery()) {
                    check("time " + k + " row", rs.next(), true);
                    check("time " + k + " time", rs.getTime(1), Time.valueOf("10:30:15"));
                    check("time " + k + " localdate", rs.getObject(2, LocalDate.class), LocalDate.of(2026, 11, 29));
                    check("time " + k + " localdatetime", rs.getObject(3, LocalDateTime.class),
                            LocalDateTime.of(2026, 11, 29, 10, 30, 15, 123456000));
                    check("time " + k + " row 2", rs.next(), true);
                    check("time " + k + " localtime", rs.getObject(1, LocalTime.class), LocalTime.of(23, 59, 59, 999999000));
                    check("time " + k + " date", rs.getDate(2), Date.valueOf("1999-12-31"));
                    check("time " + k + " timestamp", rs.getTimestamp(3), Timestamp.valueOf("2000-01-01 00:00:00"));
                    check("time " + k + " end", rs.next(), false);
                }
            }
        }

        // A batch: one Bind/Execute per row, one Sync.
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE jdbc_batch (k INT, v TEXT)");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jdbc_batch (k, v) VALUES (?, ?)")) {
            for (int k = 1; k <= 10; k++) {
                ps.setInt(1, k);
                ps.setString(2, "row " + k);
                ps.addBatch();
            }
            check("batch counts", Arrays.toString(ps.executeBatch()), "[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]");
        }
        // A batch with a bad row fails with that row's SQLSTATE; the
        // session goes on. PostgreSQL runs the batch (one Sync) as one
        // implicit transaction, so the rows before it are undone too.
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE jdbc_bad (k INT, v TEXT)");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jdbc_bad (k, v) VALUES (CAST(? AS INT), ?)")) {
            for (String k : new String[] {"11", "x", "12"}) {
                ps.setString(1, k);
                ps.setString(2, "bad batch");
                ps.addBatch();
            }
            try {
                ps.executeBatch();
                throw new AssertionError("bad batch: no error");
            } catch (BatchUpdateException e) {
                check("bad batch sqlstate", e.getSQLState(), "22P02");
            }
        }
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM jdbc_bad")) {
            rs.next();
            check("bad batch rows kept", rs.getLong(1), 0L);
        }

        // A fetch size inside a transaction: the driver reads a portal
        // 3 rows per Execute (PortalSuspended between them).
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("SELECT k, v FROM jdbc_batch WHERE k > ? ORDER BY k")) {
            ps.setFetchSize(3);
            ps.setInt(1, 2);
            StringBuilder got = new StringBuilder();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    got.append(rs.getInt(1)).append('=').append(rs.getString(2)).append(';');
                }
            }
            check("fetch size rows", got.toString(),
                    "3=row 3;4=row 4;5=row 5;6=row 6;7=row 7;8=row 8;9=row 9;10=row 10;");
        }
        c.commit();
        c.setAutoCommit(true);

        // setQueryTimeout: the driver sends a CancelRequest on a second
        // connection; the statement fails with 57014 and the session goes on.
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE jdbc_big (k INT)");
            StringBuilder values = new StringBuilder("INSERT INTO jdbc_big VALUES (0)");
            for (int k = 1; k < 100; k++) {
                values.append(", (").append(k).append(')');
            }
            check("insert 100", s.executeUpdate(values.toString()), 100);
            s.setQueryTimeout(1);
            // 10^10 rows: far longer than the timeout, on either server.
            expectError(() -> s.executeQuery(
                    "SELECT count(*) FROM jdbc_big a, jdbc_big b, jdbc_big c, jdbc_big d, jdbc_big e"), "57014");
            s.setQueryTimeout(0);
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM jdbc_big")) {
                rs.next();
                check("usable after cancel", rs.getLong(1), 100L);
            }
            s.execute("DROP TABLE jdbc_big");
        }

        // Arrays as parameters (setArray with createArrayOf) and = ANY(?),
        // run past the prepare threshold (server-side statement, binary).
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE jdbc_arr (id INT, t TEXT)");
            s.executeUpdate("INSERT INTO jdbc_arr VALUES (1, 'a'), (2, 'b c'), (3, NULL)");
        }
        try (PreparedStatement any = c.prepareStatement("SELECT id FROM jdbc_arr WHERE id = ANY(?) ORDER BY id");
                PreparedStatement anyText = c.prepareStatement("SELECT id FROM jdbc_arr WHERE t = ANY(?) ORDER BY id");
                PreparedStatement echo = c.prepareStatement(
                        "SELECT ?::int8[], ?::text[], ?::float8[], ?::int2[], ?::varchar[], ?::int4[]")) {
            for (int run = 0; run < 7; run++) {
                any.setArray(1, c.createArrayOf("int4", new Integer[] {1, 3, 99}));
                StringBuilder got = new StringBuilder();
                try (ResultSet rs = any.executeQuery()) {
                    while (rs.next()) {
                        got.append(rs.getInt(1)).append(';');
                    }
                }
                check("= ANY(int4[]) run " + run, got.toString(), "1;3;");
                anyText.setArray(1, c.createArrayOf("text", new String[] {"b c", "zz"}));
                try (ResultSet rs = anyText.executeQuery()) {
                    rs.next();
                    check("= ANY(text[]) run " + run, rs.getInt(1), 2);
                }
                echo.setArray(1, c.createArrayOf("int8", new Long[] {1L, 1L << 40}));
                echo.setArray(2, c.createArrayOf("text", new String[] {"a", "b c", null, "q\""}));
                echo.setArray(3, c.createArrayOf("float8", new Double[] {0.5, -1.0}));
                echo.setArray(4, c.createArrayOf("int2", new Short[] {1, -2}));
                echo.setArray(5, c.createArrayOf("varchar", new String[] {"x"}));
                echo.setArray(6, c.createArrayOf("int4", new Integer[] {}));
                try (ResultSet rs = echo.executeQuery()) {
                    rs.next();
                    StringBuilder arrays = new StringBuilder();
                    for (int k = 1; k <= 6; k++) {
                        arrays.append(Arrays.deepToString((Object[]) rs.getArray(k).getArray())).append(' ')
                                .append(rs.getMetaData().getColumnTypeName(k)).append(';');
                    }
                    check("array parameters run " + run, arrays.toString(),
                            "[1, 1099511627776] _int8;[a, b c, null, q\"] _text;[0.5, -1.0] _float8;[1, -2] _int2;[x] _varchar;[] _int4;");
                }
            }
        }

        // INSERT ... RETURNING: the driver's generated keys (it appends
        // RETURNING), and an explicit one; pg_backend_pid is the key's pid.
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jdbc_arr (id, t) VALUES (?, ?)",
                Statement.RETURN_GENERATED_KEYS)) {
            ps.setInt(1, 10);
            ps.setString(2, "gen");
            check("generated keys insert", ps.executeUpdate(), 1);
            try (ResultSet rs = ps.getGeneratedKeys()) {
                rs.next();
                check("generated keys", rs.getInt("id") + "/" + rs.getString("t"), "10/gen");
            }
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jdbc_arr VALUES (?, 'x') RETURNING id * 2, t")) {
            for (int run = 0; run < 7; run++) {
                ps.setInt(1, 20 + run);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    check("RETURNING run " + run, rs.getInt(1) + "/" + rs.getString(2), (40 + 2 * run) + "/x");
                }
            }
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            check("pg_backend_pid", rs.getInt(1), c.unwrap(org.postgresql.PGConnection.class).getBackendPID());
        }
        try (Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = '100ms'");
            expectError(() -> s.executeQuery("SELECT pg_sleep(20)"), "57014");
            s.execute("RESET statement_timeout");
            s.setQueryTimeout(1);
            expectError(() -> s.executeQuery("SELECT pg_sleep(20)"), "57014");
            s.setQueryTimeout(0);
            s.execute("DROP TABLE jdbc_arr");
        }

        // Transactions: rollback undoes, commit keeps, an error aborts the
        // block until rollback.
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO jdbc_t (i, t) VALUES (100, 'rolled back')");
            c.rollback();
            s.executeUpdate("INSERT INTO jdbc_t (i, t) VALUES (101, 'committed')");
            c.commit();
            s.executeUpdate("INSERT INTO jdbc_t (i, t) VALUES (102, 'aborted')");
            expectError(() -> s.executeQuery("SELECT 1/0"), "22012");
            expectError(() -> s.executeQuery("SELECT 1"), "25P02");
            c.rollback();
        }
        c.setAutoCommit(true);
        try (PreparedStatement ps = c.prepareStatement("SELECT t FROM jdbc_t WHERE i >= ? ORDER BY i")) {
            ps.setInt(1, 100);
            StringBuilder rows = new StringBuilder();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.append(rs.getString(1)).append(';');
                }
            }
            check("tx rows", rows.toString(), "committed;");
        }

        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT i, t, tz FROM jdbc_t LIMIT 1")) {
            ResultSetMetaData rm = rs.getMetaData();
            check("meta column name", rm.getColumnName(2), "t");
            check("meta column type", rm.getColumnTypeName(1), "int4");
            check("meta column type tz", rm.getColumnTypeName(3), "timestamptz");
        }
        // -Dcatalog=true: DatabaseMetaData's catalog queries (pg_catalog).
        if (Boolean.getBoolean("catalog")) {
            StringBuilder got = new StringBuilder();
            try (ResultSet rs = md.getTables(null, "public", "jdbc_%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    got.append(rs.getString("TABLE_NAME")).append(';');
                }
            }
            check("getTables", got.toString(), "jdbc_bad;jdbc_batch;jdbc_t;jdbc_time;");
            // Comments (COMMENT ON) are the REMARKS of getTables and getColumns.
            try (Statement s = c.createStatement()) {
                s.execute("COMMENT ON TABLE jdbc_t IS 'one value of each type'");
                s.execute("COMMENT ON COLUMN jdbc_t.l IS 'int8, it''s big'");
            }
            got.setLength(0);
            try (ResultSet rs = md.getTables(null, "public", "jdbc_t", new String[] {"TABLE"})) {
                while (rs.next()) {
                    got.append(rs.getString("TABLE_NAME")).append(':').append(rs.getString("REMARKS")).append(';');
                }
            }
            check("getTables REMARKS", got.toString(), "jdbc_t:one value of each type;");
            got.setLength(0);
            try (ResultSet rs = md.getColumns(null, "public", "jdbc_t", "_")) {
                while (rs.next()) {
                    got.append(rs.getString("COLUMN_NAME")).append(':').append(rs.getString("REMARKS")).append(';');
                }
            }
            check("getColumns REMARKS", got.toString(), "i:null;l:int8, it's big;s:null;d:null;f:null;n:null;b:null;t:null;u:null;");
            got.setLength(0);
            try (ResultSet rs = md.getColumns(null, "public", "jdbc_t", "%")) {
                while (rs.next()) {
                    got.append(rs.getString("COLUMN_NAME")).append(':').append(rs.getString("TYPE_NAME"))
                            .append(':').append(rs.getInt("DATA_TYPE")).append(';');
                }
            }
            check("getColumns", got.toString(), "i:int4:4;l:int8:-5;s:int2:5;d:float8:8;f:float4:7;n:numeric:2;"
                    + "b:bool:-7;t:text:12;dt:date:91;ts:timestamp:93;tz:timestamptz:93;u:uuid:1111;by:bytea:-2;");
            got.setLength(0);
            try (ResultSet rs = md.getSchemas()) {
                while (rs.next()) {
                    got.append(rs.getString("TABLE_SCHEM")).append(';');
                }
            }
            check("getSchemas has public", got.toString().contains("public;"), true);
            got.setLength(0);
            try (ResultSet rs = md.getTypeInfo()) {
                while (rs.next()) {
                    String name = rs.getString("TYPE_NAME");
                    if (name.equals("int4") || name.equals("text") || name.equals("timestamptz")) {
                        got.append(name).append(':').append(rs.getInt("DATA_TYPE")).append(';');
                    }
                }
            }
            check("getTypeInfo", got.toString().contains("int4:4;") && got.toString().contains("text:12;"), true);
            check("getDatabaseProductVersion", md.getDatabaseMajorVersion(), 15);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT i, t FROM jdbc_t LIMIT 1")) {
                ResultSetMetaData rm = rs.getMetaData();
                check("meta table name", rm.getTableName(1), "jdbc_t");
                check("meta nullable", rm.isNullable(2), ResultSetMetaData.columnNullable);
            }
            guiMetaData(c, md);
        }

        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE jdbc_t");
            s.execute("DROP TABLE jdbc_batch");
            s.execute("DROP TABLE jdbc_time");
            s.execute("DROP TABLE jdbc_bad");
        }
    }

    // What GUI tools (DBeaver, DataGrip, SQuirreL) ask DatabaseMetaData for
    // a table: keys, indexes, privileges, routines, types. Each result's
    // columns (label:type) and rows are checked.
    static void guiMetaData(Connection c, DatabaseMetaData md) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE jdbc_pk (id INT PRIMARY KEY, name TEXT)");
            s.execute("CREATE TABLE jdbc_pk2 (a INT, b TEXT, c INT, PRIMARY KEY (b, a))");
            s.execute("CREATE TABLE jdbc_def (id INT, tenant TEXT DEFAULT 'none', tokens BIGINT DEFAULT 0,"
                    + " ts TIMESTAMPTZ DEFAULT now(), at TIMESTAMPTZ DEFAULT CURRENT_TIMESTAMP)");
        }
        // COLUMN_DEF: pg_get_expr of pg_attrdef, as PostgreSQL deparses it.
        StringBuilder defs = new StringBuilder();
        try (ResultSet rs = md.getColumns(null, "public", "jdbc_def", "%")) {
            while (rs.next()) {
                defs.append(rs.getString("COLUMN_NAME")).append('=').append(rs.getString("COLUMN_DEF")).append(';');
            }
        }
        check("getColumns COLUMN_DEF", defs.toString(),
                "id=null;tenant='none'::text;tokens=0;ts=now();at=CURRENT_TIMESTAMP;");
        String keyCols = "table_cat:text table_schem:name table_name:name column_name:name key_seq:int4 pk_name:name";
        checkMeta("getPrimaryKeys", md.getPrimaryKeys(null, "public", "jdbc_pk2"), keyCols,
                "null|public|jdbc_pk2|b|1|jdbc_pk2_pkey;null|public|jdbc_pk2|a|2|jdbc_pk2_pkey;");
        checkMeta("getPrimaryKeys any schema", md.getPrimaryKeys(null, null, "jdbc_pk"), keyCols,
                "null|public|jdbc_pk|id|1|jdbc_pk_pkey;");
        checkMeta("getPrimaryKeys none", md.getPrimaryKeys(null, "public", "jdbc_t"), keyCols, "");
        String indexCols = "TABLE_CAT:text TABLE_SCHEM:name TABLE_NAME:name NON_UNIQUE:bool INDEX_QUALIFIER:text"
                + " INDEX_NAME:name TYPE:int4 ORDINAL_POSITION:int4 COLUMN_NAME:text ASC_OR_DESC:text CARDINALITY:float4"
                + " PAGES:int4 FILTER_CONDITION:text";
        checkMeta("getIndexInfo", md.getIndexInfo(null, "public", "jdbc_pk2", false, false), indexCols,
                "null|public|jdbc_pk2|f|null|jdbc_pk2_pkey|3|1|b|A|0|1|null;"
                + "null|public|jdbc_pk2|f|null|jdbc_pk2_pkey|3|2|a|A|0|1|null;");
        checkMeta("getIndexInfo unique", md.getIndexInfo(null, "public", "jdbc_pk", true, true), indexCols,
                "null|public|jdbc_pk|f|null|jdbc_pk_pkey|3|1|id|A|0|1|null;");
        checkMeta("getIndexInfo none", md.getIndexInfo(null, "public", "jdbc_t", false, true), indexCols, "");
        String fkCols = "pktable_cat:text pktable_schem:name pktable_name:name pkcolumn_name:name fktable_cat:text"
                + " fktable_schem:name fktable_name:name fkcolumn_name:name key_seq:int4 update_rule:int4 delete_rule:int4"
                + " fk_name:name pk_name:name deferrability:int4";
        checkMeta("getImportedKeys", md.getImportedKeys(null, "public", "jdbc_pk2"), fkCols, "");
        checkMeta("getExportedKeys", md.getExportedKeys(null, "public", "jdbc_pk"), fkCols, "");
        checkMeta("getCrossReference", md.getCrossReference(null, "public", "jdbc_pk", null, "public", "jdbc_pk2"), fkCols, "");
        String rowIdCols = "SCOPE:int2 COLUMN_NAME:varchar DATA_TYPE:int2 TYPE_NAME:varchar COLUMN_SIZE:int4"
                + " BUFFER_LENGTH:int4 DECIMAL_DIGITS:int2 PSEUDO_COLUMN:int2";
        checkMeta("getBestRowIdentifier", md.getBestRowIdentifier(null, "public", "jdbc_pk2", DatabaseMetaData.bestRowSession, true),
                rowIdCols, "2|a|4|int4|10|null|0|1;2|b|12|text|2147483647|null|0|1;");
        checkMeta("getBestRowIdentifier none", md.getBestRowIdentifier(null, "public", "jdbc_t", DatabaseMetaData.bestRowSession, true),
                rowIdCols, "");
        checkMeta("getVersionColumns", md.getVersionColumns(null, "public", "jdbc_pk"), rowIdCols, "null|ctid|1111|tid|null|null|null|2;");

        // The owner holds every privilege, granted by itself.
        String user = md.getUserName();
        String[] privileges = {"DELETE", "INSERT", "REFERENCES", "SELECT", "TRIGGER", "TRUNCATE", "UPDATE"};
        StringBuilder want = new StringBuilder();
        for (String col : new String[] {"id", "name"}) {
            for (String priv : privileges) {
                want.append("null|public|jdbc_pk|").append(col).append('|').append(user).append('|').append(user)
                        .append('|').append(priv).append("|YES;");
            }
        }
        checkMeta("getColumnPrivileges", md.getColumnPrivileges(null, "public", "jdbc_pk", "%"),
                "TABLE_CAT:varchar TABLE_SCHEM:varchar TABLE_NAME:varchar COLUMN_NAME:varchar GRANTOR:varchar"
                + " GRANTEE:varchar PRIVILEGE:varchar IS_GRANTABLE:varchar", want.toString());
        want.setLength(0);
        for (String table : new String[] {"jdbc_pk", "jdbc_pk2"}) {
            for (String priv : privileges) {
                want.append("null|public|").append(table).append('|').append(user).append('|').append(user)
                        .append('|').append(priv).append("|YES;");
            }
        }
        checkMeta("getTablePrivileges", md.getTablePrivileges(null, "public", "jdbc_pk%"),
                "TABLE_CAT:varchar TABLE_SCHEM:varchar TABLE_NAME:varchar GRANTOR:varchar GRANTEE:varchar"
                + " PRIVILEGE:varchar IS_GRANTABLE:varchar", want.toString());

        // No routines in public on either server.
        checkMeta("getProcedures", md.getProcedures(null, "public", "%"),
                "procedure_cat:text procedure_schem:name procedure_name:name ?column?:text ?column?:text ?column?:text"
                + " remarks:text procedure_type:int4 specific_name:text", "");
        checkMeta("getFunctions", md.getFunctions(null, "public", "%"),
                "function_cat:name function_schem:name function_name:name remarks:text function_type:int4 specific_name:text", "");
        checkMeta("getProcedureColumns", md.getProcedureColumns(null, "public", "%", "%"),
                "PROCEDURE_CAT:varchar PROCEDURE_SCHEM:varchar PROCEDURE_NAME:varchar COLUMN_NAME:varchar COLUMN_TYPE:int2"
                + " DATA_TYPE:int2 TYPE_NAME:varchar PRECISION:int4 LENGTH:int4 SCALE:int2 RADIX:int2 NULLABLE:int2"
                + " REMARKS:varchar COLUMN_DEF:varchar SQL_DATA_TYPE:int4 SQL_DATETIME_SUB:int4 CHAR_OCTET_LENGTH:int4"
                + " ORDINAL_POSITION:int4 IS_NULLABLE:varchar SPECIFIC_NAME:varchar", "");
        checkMeta("getFunctionColumns", md.getFunctionColumns(null, "public", "%", "%"),
                "FUNCTION_CAT:varchar FUNCTION_SCHEM:varchar FUNCTION_NAME:varchar COLUMN_NAME:varchar COLUMN_TYPE:int2"
                + " DATA_TYPE:int2 TYPE_NAME:varchar PRECISION:int2 LENGTH:int4 SCALE:int2 RADIX:int2 NULLABLE:int2"
                + " REMARKS:varchar CHAR_OCTET_LENGTH:int4 ORDINAL_POSITION:int4 IS_NULLABLE:varchar SPECIFIC_NAME:varchar", "");

        checkMeta("getTableTypes", md.getTableTypes(), "TABLE_TYPE:varchar",
                "FOREIGN TABLE;INDEX;MATERIALIZED VIEW;PARTITIONED INDEX;PARTITIONED TABLE;SEQUENCE;SYSTEM INDEX;"
                + "SYSTEM TABLE;SYSTEM TOAST INDEX;SYSTEM TOAST TABLE;SYSTEM VIEW;TABLE;TEMPORARY INDEX;"
                + "TEMPORARY SEQUENCE;TEMPORARY TABLE;TEMPORARY VIEW;TYPE;VIEW;");
        checkMeta("getCatalogs", md.getCatalogs(), "TABLE_CAT:varchar", c.getCatalog() + ";");
        String schemaCols = "table_schem:name table_catalog:text";
        checkMeta("getSchemas pattern", md.getSchemas(null, "pub%"), schemaCols, "public|null;");
        checkMeta("getSchemas pg_catalog", md.getSchemas(null, "pg_catalog"), schemaCols, "pg_catalog|null;");
        checkMeta("getSchemas none", md.getSchemas(null, "no_such%"), schemaCols, "");
        // A table's row type is a user-defined (STRUCT) type.
        checkMeta("getUDTs", md.getUDTs(null, "public", "jdbc_pk%", null),
                "type_cat:text type_schem:name type_name:name class_name:text data_type:int4 remarks:text base_type:int4",
                "null|public|jdbc_pk|null|2002|null|null;null|public|jdbc_pk2|null|2002|null|null;");
        checkMeta("getUDTs distinct", md.getUDTs(null, "public", "%", new int[] {java.sql.Types.DISTINCT}),
                "type_cat:text type_schem:name type_name:name class_name:text data_type:int4 remarks:text base_type:int4", "");
        checkMeta("getClientInfoProperties", md.getClientInfoProperties(),
                "NAME:varchar MAX_LEN:int4 DEFAULT_VALUE:varchar DESCRIPTION:varchar",
                "ApplicationName|63||The name of the application currently utilizing the connection.;");
        // Tables with no type filter list their primary key indexes too.
        StringBuilder got = new StringBuilder();
        try (ResultSet rs = md.getTables(null, "public", "jdbc_pk%", null)) {
            while (rs.next()) {
                got.append(rs.getString("TABLE_NAME")).append(':').append(rs.getString("TABLE_TYPE")).append(';');
            }
        }
        check("getTables with indexes", got.toString(), "jdbc_pk2_pkey:INDEX;jdbc_pk_pkey:INDEX;jdbc_pk:TABLE;jdbc_pk2:TABLE;");
        // PostgreSQL's keywords that are not SQL:2003's (DBeaver and
        // SQuirreL highlight them).
        String keywords = "," + md.getSQLKeywords() + ",";
        check("getSQLKeywords", keywords.contains(",abort,") && keywords.contains(",analyse,") && !keywords.contains(",select,"), true);
        check("getMaxColumnsInIndex", md.getMaxColumnsInIndex(), 32);
        check("getMaxTableNameLength", md.getMaxTableNameLength(), 63);
        // The driver implements no getSuperTables or getSuperTypes.
        try {
            md.getSuperTables(null, "public", "jdbc_pk");
            throw new AssertionError("getSuperTables: no exception");
        } catch (java.sql.SQLFeatureNotSupportedException e) {
            check("getSuperTables sqlstate", e.getSQLState(), "0A000");
        }
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE jdbc_pk");
            s.execute("DROP TABLE jdbc_pk2");
            s.execute("DROP TABLE jdbc_def");
        }
    }

    // checkMeta checks a DatabaseMetaData result: its columns as label:type
    // and its rows as |-joined strings, each ended by ';'.
    static void checkMeta(String what, ResultSet rs, String cols, String rows) throws SQLException {
        try (rs) {
            ResultSetMetaData rm = rs.getMetaData();
            StringBuilder got = new StringBuilder();
            for (int i = 1; i <= rm.getColumnCount(); i++) {
                got.append(i > 1 ? " " : "").append(rm.getColumnLabel(i)).append(':').append(rm.getColumnTypeName(i));
            }
            check(what + " columns", got.toString(), cols);
            got.setLength(0);
            while (rs.next()) {
                for (int i = 1; i <= rm.getColumnCount(); i++) {
                    got.append(i > 1 ? "|" : "").append(rs.getString(i));
                }
                got.append(';');
            }
            check(what, got.toString(), rows);
        }
    }

    static void checkRow1(ResultSet rs, String p) throws SQLException {
        check(p + " int", rs.getInt(1), 42);
        check(p + " long", rs.getLong(2), 9_000_000_000L);
        check(p + " short", rs.getShort(3), (short) -7);
        check(p + " double", rs.getDouble(4), 2.5);
        check(p + " float", rs.getFloat(5), 1.25f);
        check(p + " numeric", rs.getBigDecimal(6), new BigDecimal("12345.678"));
        check(p + " bool", rs.getBoolean(7), true);
        check(p + " text", rs.getString(8), "héllo 'world'");
        check(p + " date", rs.getDate(9), Date.valueOf("2026-11-29"));
        check(p + " timestamp", rs.getTimestamp(10), Timestamp.valueOf("2026-11-29 10:30:15.123456"));
        check(p + " timestamptz", rs.getObject(11, OffsetDateTime.class).toInstant(), TSTZ1.toInstant());
        check(p + " uuid", rs.getObject(12), ID1);
        check(p + " bytea", rs.getBytes(13), new byte[] {0, 1, 2, (byte) 0xff});
        check(p + " object int", rs.getObject(1), 42);
        check(p + " object numeric", rs.getObject(6), new BigDecimal("12345.678"));
    }

    static void checkRow2(ResultSet rs, String p) throws SQLException {
        check(p + " int", rs.getInt(1), 7);
        check(p + " long", rs.getLong(2), -1L);
        check(p + " short", rs.getShort(3), Short.MAX_VALUE);
        check(p + " double", rs.getDouble(4), -0.125);
        check(p + " float", rs.getFloat(5), 3.5f);
        check(p + " numeric", rs.getBigDecimal(6), new BigDecimal("-0.500"));
        check(p + " bool", rs.getBoolean(7), false);
        check(p + " text", rs.getString(8), "second");
        check(p + " date", rs.getDate(9), Date.valueOf("2000-01-01"));
        check(p + " timestamp", rs.getTimestamp(10), Timestamp.valueOf("1999-12-31 23:59:59"));
        check(p + " timestamptz", rs.getObject(11, OffsetDateTime.class).toInstant(), TSTZ2.toInstant());
        check(p + " uuid", rs.getObject(12), ID2);
        check(p + " bytea", rs.getBytes(13), new byte[0]);
    }

    interface Action {
        Object run() throws SQLException;
    }

    static void expectError(Action a, String state) {
        try {
            a.run();
        } catch (SQLException e) {
            check("error " + e.getMessage().split("\n")[0] + " sqlstate", e.getSQLState(), state);
            return;
        }
        throw new AssertionError("no error, want SQLSTATE " + state);
    }
}
