//! `results.parquet` (feature `parquet`): the table of `results.csv` with typed columns. A
//! column whose non-empty cells all parse as numbers is DOUBLE, any other is a UTF-8 string;
//! every column is optional, empty cells are nulls. One row group.

use std::io;
use std::sync::Arc;

use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use crate::results::{Row, results_table};

fn numeric(cells: &[&str]) -> bool {
    cells.iter().any(|c| !c.is_empty())
        && cells
            .iter()
            .all(|c| c.is_empty() || c.parse::<f64>().is_ok())
}

pub fn results_parquet(axis_keys: &[String], rows: &[Row]) -> io::Result<Vec<u8>> {
    let (header, records) = results_table(axis_keys, rows);
    let column = |i: usize| records.iter().map(|r| r[i].as_str()).collect::<Vec<&str>>();
    let numeric_columns: Vec<bool> = (0..header.len()).map(|i| numeric(&column(i))).collect();
    let fields = header
        .iter()
        .zip(&numeric_columns)
        .map(|(name, &is_number)| {
            let builder = if is_number {
                Type::primitive_type_builder(name, PhysicalType::DOUBLE)
            } else {
                Type::primitive_type_builder(name, PhysicalType::BYTE_ARRAY)
                    .with_logical_type(Some(LogicalType::String))
            };
            builder
                .with_repetition(Repetition::OPTIONAL)
                .build()
                .map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(io::Error::other)?;
    let schema = Type::group_type_builder("results")
        .with_fields(fields)
        .build()
        .map_err(io::Error::other)?;
    let mut bytes = Vec::new();
    let mut writer = SerializedFileWriter::new(
        &mut bytes,
        Arc::new(schema),
        Arc::new(WriterProperties::builder().build()),
    )
    .map_err(io::Error::other)?;
    let mut group = writer.next_row_group().map_err(io::Error::other)?;
    for (i, &is_number) in numeric_columns.iter().enumerate() {
        let cells = column(i);
        // Definition level 1: a value; 0: null.
        let levels: Vec<i16> = cells.iter().map(|c| i16::from(!c.is_empty())).collect();
        let mut out = group
            .next_column()
            .map_err(io::Error::other)?
            .expect("one writer per schema column");
        if is_number {
            let values: Vec<f64> = cells.iter().filter_map(|c| c.parse().ok()).collect();
            out.typed::<DoubleType>()
                .write_batch(&values, Some(&levels), None)
                .map_err(io::Error::other)?;
        } else {
            let values: Vec<ByteArray> = cells
                .iter()
                .filter(|c| !c.is_empty())
                .map(|c| ByteArray::from(*c))
                .collect();
            out.typed::<ByteArrayType>()
                .write_batch(&values, Some(&levels), None)
                .map_err(io::Error::other)?;
        }
        out.close().map_err(io::Error::other)?;
    }
    group.close().map_err(io::Error::other)?;
    writer.close().map_err(io::Error::other)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    #[test]
    fn typed_columns_with_nulls() {
        let row = |id: &str, util: &str, fct: &str| Row {
            id: id.into(),
            index: 0,
            params: vec![("flows.0.cc".into(), "reno".into())],
            replicate: 0,
            seed: 3,
            columns: vec!["aggregate.utilization".into(), "flows.0.fct_s".into()],
            values: vec![util.into(), fct.into()],
            wall_s: 0.0,
        };
        let bytes = results_parquet(
            &["flows.0.cc".into()],
            &[row("a", "0.5", ""), row("b", "0.75", "1.5")],
        )
        .unwrap();
        let path =
            std::env::temp_dir().join(format!("cclab-results-{}.parquet", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        let meta = reader.metadata();
        assert_eq!(meta.file_metadata().num_rows(), 2);
        let schema = meta.file_metadata().schema_descr();
        let types: Vec<(String, PhysicalType)> = schema
            .columns()
            .iter()
            .map(|c| (c.name().to_string(), c.physical_type()))
            .collect();
        assert_eq!(
            types,
            [
                ("run_id".to_string(), PhysicalType::BYTE_ARRAY),
                ("flows.0.cc".to_string(), PhysicalType::BYTE_ARRAY),
                ("replicate".to_string(), PhysicalType::DOUBLE),
                ("seed".to_string(), PhysicalType::DOUBLE),
                ("aggregate.utilization".to_string(), PhysicalType::DOUBLE),
                ("flows.0.fct_s".to_string(), PhysicalType::DOUBLE),
            ]
        );
    }

    /// Read `results.parquet` back row by row and compare every value with the cell of
    /// `results.csv` written from the same rows: a number column holds the CSV cell's number,
    /// a string column its text, an empty cell is a null, in the same row and column.
    #[test]
    fn values_match_results_csv() {
        use parquet::record::Field;
        let row = |id: &str, cc: &str, util: &str, fct: &str, mode: &str| Row {
            id: id.into(),
            index: 0,
            params: vec![("flows.0.cc".into(), cc.into())],
            replicate: 1,
            seed: 7,
            columns: vec![
                "aggregate.utilization".into(),
                "flows.0.fct_s".into(),
                "flows.0.mode".into(),
            ],
            values: vec![util.into(), fct.into(), mode.into()],
            wall_s: 0.0,
        };
        // Nulls first, in the middle and last, so values cannot shift between rows.
        let rows = [
            row("a", "reno", "0.5", "", "slow_start"),
            row("b", "cubic", "0.75", "1.5", ""),
            row("c", "bbr", "", "2.25", "probe_bw"),
            row("d", "vegas", "1e-3", "", "cong_avoid"),
        ];
        let axes = ["flows.0.cc".to_string()];
        let csv_bytes = crate::results::results_csv(&axes, &rows).unwrap();
        let mut csv = csv::Reader::from_reader(&csv_bytes[..]);
        let header: Vec<String> = csv.headers().unwrap().iter().map(String::from).collect();
        let records: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();

        let path = std::env::temp_dir().join(format!(
            "cclab-results-values-{}.parquet",
            std::process::id()
        ));
        std::fs::write(&path, results_parquet(&axes, &rows).unwrap()).unwrap();
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let parquet_rows: Vec<parquet::record::Row> = reader
            .get_row_iter(None)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        std::fs::remove_file(&path).unwrap();

        assert_eq!(parquet_rows.len(), records.len());
        assert_eq!(records.len(), 4);
        for (record, parquet_row) in records.iter().zip(&parquet_rows) {
            let fields: Vec<(&String, &Field)> = parquet_row.get_column_iter().collect();
            assert_eq!(fields.len(), header.len());
            for ((name, field), (column, cell)) in fields.iter().zip(header.iter().zip(record)) {
                assert_eq!(*name, column);
                match field {
                    Field::Null => assert_eq!(cell, "", "{column} of {}", &record[0]),
                    Field::Double(v) => {
                        assert_eq!(Some(*v), cell.parse::<f64>().ok(), "{column}")
                    }
                    Field::Str(s) => assert_eq!(s, cell, "{column}"),
                    other => panic!("{column}: unexpected {other:?}"),
                }
            }
        }
        // Spot values by hand: row b's utilization and fct, row c's null utilization.
        let get = |row: usize, column: &str| {
            parquet_rows[row]
                .get_column_iter()
                .find(|(name, _)| *name == column)
                .map(|(_, f)| f.clone())
                .unwrap()
        };
        assert_eq!(get(1, "aggregate.utilization"), Field::Double(0.75));
        assert_eq!(get(1, "flows.0.fct_s"), Field::Double(1.5));
        assert_eq!(get(2, "aggregate.utilization"), Field::Null);
        assert_eq!(get(3, "aggregate.utilization"), Field::Double(0.001));
        assert_eq!(get(2, "flows.0.cc"), Field::Str("bbr".into()));
        assert_eq!(get(1, "flows.0.mode"), Field::Null);
        assert_eq!(get(3, "seed"), Field::Double(7.0));
    }
}
