// node-postgres (npm pg) against Loam, with the driver's defaults.
//
// Run by clients/clients_test.go as `node pg_client.js CONNECTION_STRING`,
// against Loam and against PostgreSQL 15: every expectation must hold on
// both. pg sends queries with parameters over the extended protocol
// (parameters untyped, in text except Buffers in binary, results in text)
// and queries without them over the simple protocol.
'use strict';
// pg parses date and timestamp (without time zone) as local times.
process.env.TZ = 'UTC';

const assert = require('node:assert/strict');
const { Client } = require('pg');

const COLS = ['id', 'i2', 'i4', 'i8', 'f4', 'f8', 'n', 'b', 't', 'v', 'd', 'ts', 'tz', 'u', 'by', 'j', 'jb'];
const OIDS = [23, 21, 23, 20, 700, 701, 1700, 16, 25, 1043, 1082, 1114, 1184, 2950, 17, 114, 3802];
const U1 = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11';
const placeholders = COLS.map((_, i) => '$' + (i + 1)).join(', ');
const INSERT = `INSERT INTO node_types (${COLS.join(', ')}) VALUES (${placeholders})`;

// Parameters as an application passes them, and the values pg returns.
// int8 and numeric come back as strings (pg's defaults: no precision lost).
const ROWS = [
  {
    params: [1, 32767, 2147483647, '9223372036854775807', 1.5, 2.25, '12345.678', true,
      "héllo 'quoted'", 'vc', '2024-01-02', '2024-01-02 03:04:05.123456',
      new Date('2024-01-02T03:04:05Z'), U1, Buffer.from([0, 1, 0xfe, 0xff]),
      JSON.stringify({ a: 1, b: [1, 2] }), { k: 'v', n: null }],
    want: [1, 32767, 2147483647, '9223372036854775807', 1.5, 2.25, '12345.678', true,
      "héllo 'quoted'", 'vc', new Date('2024-01-02T00:00:00Z'), new Date('2024-01-02T03:04:05.123Z'),
      new Date('2024-01-02T03:04:05Z'), U1, Buffer.from([0, 1, 0xfe, 0xff]),
      { a: 1, b: [1, 2] }, { k: 'v', n: null }],
  },
  {
    params: [2, -32768, -2147483648, '-9223372036854775808', -0.5, -1e100, '-0.001', false,
      '', '', '1999-12-31', '1999-12-31 23:59:59', '1999-12-31 23:00:00-05',
      '00000000-0000-0000-0000-000000000000', Buffer.alloc(0), '[]', {}],
    want: [2, -32768, -2147483648, '-9223372036854775808', -0.5, -1e100, '-0.001', false,
      '', '', new Date('1999-12-31T00:00:00Z'), new Date('1999-12-31T23:59:59Z'),
      new Date('2000-01-01T04:00:00Z'), '00000000-0000-0000-0000-000000000000', Buffer.alloc(0), [], {}],
  },
  { params: [3, ...Array(16).fill(null)], want: [3, ...Array(16).fill(null)] },
];

// expectError checks the error's SQLSTATE and, when given, its other fields.
async function expectError(client, text, values, code, fields = {}) {
  await assert.rejects(client.query(text, values), (err) => {
    assert.equal(err.code, code, `${text}: SQLSTATE (${err.message})`);
    assert.equal(err.severity, 'ERROR', `${text}: severity`);
    for (const [k, v] of Object.entries(fields)) {
      assert.equal(err[k], v, `${text}: error field ${k}`);
    }
    return true;
  }, `${text}: no error`);
}

async function main(conn) {
  const client = new Client({ connectionString: conn });
  await client.connect();

  let res = await client.query('SELECT 1 AS one');
  assert.deepEqual(res.rows, [{ one: 1 }]);

  await client.query('DROP TABLE IF EXISTS node_types');
  await client.query(`CREATE TABLE node_types (id int4, i2 int2, i4 int4, i8 int8, f4 float4,
    f8 float8, n numeric(20,3), b bool, t text, v varchar(10), d date, ts timestamp,
    tz timestamptz, u uuid, by bytea, j json, jb jsonb)`);

  // Inserts with parameters, the same statement text repeated.
  for (const r of ROWS) {
    res = await client.query(INSERT, r.params);
    assert.equal(res.rowCount, 1, 'insert rowCount');
    assert.equal(res.command, 'INSERT');
  }

  // Unnamed and named (prepared once, then re-executed) statements.
  for (const name of [undefined, 'sel_all', 'sel_all']) {
    res = await client.query({ name, text: `SELECT ${COLS.join(', ')} FROM node_types WHERE id > $1 ORDER BY id`, values: [0] });
    assert.deepEqual(res.fields.map((f) => f.name), COLS);
    assert.deepEqual(res.fields.map((f) => f.dataTypeID), OIDS);
    assert.equal(res.rowCount, 3);
    res.rows.forEach((row, i) => assert.deepEqual(COLS.map((c) => row[c]), ROWS[i].want, `row ${i} (${name})`));
  }
  // Rows as arrays over the simple protocol.
  res = await client.query({ text: `SELECT ${COLS.join(', ')} FROM node_types ORDER BY id`, rowMode: 'array' });
  res.rows.forEach((row, i) => assert.deepEqual(row, ROWS[i].want, `row ${i} (simple)`));

  // Each type as an (untyped) parameter in WHERE.
  const p0 = ROWS[0].params;
  for (let i = 1; i < COLS.length; i++) {
    const c = COLS[i];
    // json has no equality operator in PostgreSQL.
    const text = c === 'j' ? 'SELECT id FROM node_types WHERE j::text = $1' : `SELECT id FROM node_types WHERE ${c} = $1`;
    res = await client.query(text, [p0[i]]);
    assert.deepEqual(res.rows, [{ id: 1 }], `where ${c} = $1`);
  }
  res = await client.query('SELECT id FROM node_types WHERE i4 > $1 AND t LIKE $2 ORDER BY id', [0, '%quoted%']);
  assert.deepEqual(res.rows, [{ id: 1 }]);
  res = await client.query('SELECT id FROM node_types WHERE d IS NULL');
  assert.deepEqual(res.rows, [{ id: 3 }]);

  // Parameters round-trip through a SELECT list, cast to their types (pg
  // sends a JS array as an array literal: JSON goes as a string).
  res = await client.query({
    text: 'SELECT $1::int4, $2::int8, $3::float8, $4::numeric, $5::bool, $6::text, $7::bytea, $8::date, ' +
      '$9::timestamp, $10::timestamptz, $11::uuid, $12::jsonb, $13::int4',
    values: [42, 2 ** 40, 1.25, '1.10', true, "it's", Buffer.from([1, 2]), '2020-02-29',
      '2020-02-29 12:00:00', new Date('2020-02-29T12:00:00Z'), U1, JSON.stringify([1, 'a']), null],
    rowMode: 'array',
  });
  assert.deepEqual(res.rows[0], [42, String(2 ** 40), 1.25, '1.10', true, "it's", Buffer.from([1, 2]),
    new Date('2020-02-29T00:00:00Z'), new Date('2020-02-29T12:00:00Z'), new Date('2020-02-29T12:00:00Z'),
    U1, [1, 'a'], null]);

  // Untyped parameters take their type from the context.
  res = await client.query('SELECT $1 AS a, $2::text || $3 AS b, $4 + 1 AS c', ['abc', 'x', 5, 5]);
  assert.deepEqual(res.rows, [{ a: 'abc', b: 'x5', c: 6 }]);
  assert.deepEqual(res.fields.map((f) => f.dataTypeID), [25, 25, 23]);

  // Arrays (from aggregates), time and interval.
  res = await client.query({
    text: "SELECT array_agg(i4 ORDER BY id), array_agg(t ORDER BY id), '12:34:56.5'::time, " +
      "'1 day 02:03:04'::interval FROM node_types WHERE id <= $1",
    values: [3],
    rowMode: 'array',
  });
  const [ints, texts, time, iv] = res.rows[0];
  assert.deepEqual([ints, texts, time], [[2147483647, -2147483648, null], ["héllo 'quoted'", '', null], '12:34:56.5']);
  assert.deepEqual([iv.days, iv.hours, iv.minutes, iv.seconds], [1, 2, 3, 4]);

  // JS arrays as parameters (pg sends array literals in text, type
  // unspecified), = ANY($1), and arrays of each element type back.
  res = await client.query('SELECT id FROM node_types WHERE i4 = ANY($1) ORDER BY id', [[2147483647, -2147483648, 5]]);
  assert.deepEqual(res.rows, [{ id: 1 }, { id: 2 }]);
  res = await client.query('SELECT id FROM node_types WHERE t = ANY($1) ORDER BY id', [['', "héllo 'quoted'"]]);
  assert.deepEqual(res.rows, [{ id: 1 }, { id: 2 }]);
  res = await client.query({
    text: 'SELECT $1::int8[], $2::text[], $3::float8[], $4::int2[], $5::varchar[], $6::int4[]',
    values: [[1, 2 ** 40], ['a', 'b c', null, 'q"', '{x}'], [0.5, -1], [1, -2], ['x'], []],
    rowMode: 'array',
  });
  assert.deepEqual(res.rows[0], [['1', String(2 ** 40)], ['a', 'b c', null, 'q"', '{x}'], [0.5, -1], [1, -2], ['x'], []]);
  assert.deepEqual(res.fields.map((f) => f.dataTypeID), [1016, 1009, 1022, 1005, 1015, 1007]);

  // INSERT ... RETURNING, and the session functions.
  await client.query('DROP TABLE IF EXISTS node_ret');
  await client.query('CREATE TABLE node_ret (id int4, t text)');
  res = await client.query('INSERT INTO node_ret VALUES ($1, $2), ($3, NULL) RETURNING id, t, id * 10 AS x', [10, 'ret', 11]);
  assert.equal(res.command, 'INSERT');
  assert.equal(res.rowCount, 2);
  assert.deepEqual(res.rows, [{ id: 10, t: 'ret', x: 100 }, { id: 11, t: null, x: 110 }]);
  res = await client.query('SELECT pg_backend_pid() AS pid');
  assert.equal(res.rows[0].pid, client.processID);
  res = await client.query("SELECT set_config('application_name', $1, false) AS v", ['node app']);
  assert.deepEqual(res.rows, [{ v: 'node app' }]);
  await client.query("SET statement_timeout = '100ms'");
  await assert.rejects(client.query('SELECT pg_sleep(20)'),
    (e) => e.code === '57014' && e.message === 'canceling statement due to statement timeout');
  await client.query('RESET statement_timeout');

  // A result larger than one network write.
  res = await client.query({ text: 'SELECT x, repeat($2, 10) AS s FROM generate_series(1, $1::int4) x', values: [20000, 'ab'] });
  assert.equal(res.rowCount, 20000);
  assert.deepEqual(res.rows[19999], { x: 20000, s: 'ab'.repeat(10) });

  // SET TIME ZONE: timestamptz is read with the session's offset.
  await client.query("SET TIME ZONE 'America/New_York'");
  res = await client.query("SELECT '2024-01-02 03:04:05+00'::timestamptz AS t, '2024-01-02 03:04:05+00'::timestamptz::text AS s");
  assert.deepEqual(res.rows, [{ t: new Date('2024-01-02T03:04:05Z'), s: '2024-01-01 22:04:05-05' }]);
  await client.query("SET TIME ZONE 'UTC'");

  // Errors carry their SQLSTATE; the connection stays usable.
  await expectError(client, 'SELECT 1/0', undefined, '22012');
  await expectError(client, 'SELECT $1::int4 / $2::int4', [1, 0], '22012');
  await expectError(client, 'SELECT * FROM no_such_table', undefined, '42P01');
  await expectError(client, 'SELECT nosuchcol FROM node_types WHERE id = $1', [1], '42703');
  await expectError(client, 'SELECT $1::int4', ['abc'], '22P02', {
    message: 'invalid input syntax for type integer: "abc"',
    detail: undefined,
    where: "unnamed portal parameter $1 = '...'",
  });
  await expectError(client, 'SELECT $1::int4', [1, 2], '08P01', {
    message: 'bind message supplies 2 parameters, but prepared statement "" requires 1',
  });
  await expectError(client, 'SELECT * FROM no_such_table', undefined, '42P01', {
    message: 'relation "no_such_table" does not exist',
    position: '15',
  });
  await expectError(client, 'SELEC 1', undefined, '42601');
  res = await client.query('SELECT count(*)::int4 AS n FROM node_types WHERE id > $1', [0]);
  assert.deepEqual(res.rows, [{ n: 3 }], 'usable after errors');

  // Notices and warnings reach the client's notice event.
  const notices = [];
  client.on('notice', (n) => notices.push([n.severity, n.code, n.message]));
  await client.query('DROP TABLE IF EXISTS no_such_table');
  await client.query('COMMIT');
  assert.deepEqual(notices, [
    ['NOTICE', '00000', 'table "no_such_table" does not exist, skipping'],
    ['WARNING', '25P01', 'there is no transaction in progress'],
  ]);

  // Transactions: COMMIT, and an error inside one aborts it until ROLLBACK
  // (or ROLLBACK TO a savepoint).
  await client.query('BEGIN');
  await client.query('SAVEPOINT sp');
  await expectError(client, 'SELECT $1::int4 / 0', [1], '22012');
  await client.query('ROLLBACK TO SAVEPOINT sp');
  res = await client.query('SELECT $1::int4 AS v', [8]);
  assert.deepEqual(res.rows, [{ v: 8 }], 'usable after ROLLBACK TO');
  await client.query('RELEASE sp');
  await client.query('COMMIT');
  await client.query('BEGIN');
  await client.query('INSERT INTO node_types (id) VALUES ($1)', [4]);
  await client.query('COMMIT');
  await client.query('BEGIN');
  await expectError(client, 'SELECT 1/0', undefined, '22012');
  await expectError(client, 'SELECT $1::int4', [1], '25P02');
  await client.query('ROLLBACK');
  res = await client.query('SELECT count(*) AS n, count(t) AS nt FROM node_types');
  assert.deepEqual(res.rows, [{ n: '4', nt: '2' }]);
  await client.end();
  console.log('node-postgres: ok');
}

main(process.argv[2]).catch((err) => {
  console.error(err);
  process.exit(1);
});
